import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { globTool, type GlobArgs } from './glob.js';
import { makeContext, makeTempRoot } from '../../../test/toolContext.js';

let ws: ReturnType<typeof makeTempRoot>;
let outside: ReturnType<typeof makeTempRoot>;

beforeEach(() => {
  ws = makeTempRoot({
    'src/b.ts': '',
    'src/a.ts': '',
    'src/sub/c.ts': '',
    'src/readme.md': '',
    '.config/x.ts': '',
    'node_modules/dep/index.ts': '',
    '.git/hooks/h.ts': '',
  });
  outside = makeTempRoot({ 'evil.ts': '' });
});
afterEach(() => {
  ws.remove();
  outside.remove();
});

const body = async (args: GlobArgs): Promise<string> => {
  const out = await globTool.run(args, makeContext(ws.root));
  if (out.kind !== 'text') throw new Error('expected text');
  return out.body;
};

describe('glob', () => {
  it('matches relative to the root, dot folders included, ignored folders not walked, sorted', async () => {
    const r = ws.root;
    expect(await body({ pattern: '**/*.ts' })).toBe(
      [`${r}/.config/x.ts`, `${r}/src/a.ts`, `${r}/src/b.ts`, `${r}/src/sub/c.ts`].join('\n'),
    );
  });

  it('matches relative to the given path', async () => {
    expect(await body({ pattern: '*.ts', path: 'src' })).toBe(`${ws.root}/src/a.ts\n${ws.root}/src/b.ts`);
  });

  it('does not walk a symlinked folder that points outside the workspace', async () => {
    fs.symlinkSync(outside.root, path.join(ws.root, 'src', 'linked'));
    expect(await body({ pattern: '**/evil.ts' })).toBe(`No files match **/evil.ts in ${ws.root}.`);
  });

  it('answers no match with the pattern and the absolute folder', async () => {
    expect(await body({ pattern: '*.py', path: './src' })).toBe(`No files match *.py in ${ws.root}/src.`);
  });

  it('refuses a path outside the workspace and a missing folder', async () => {
    await expect(body({ pattern: '*', path: '../..' })).rejects.toThrow(/^Error: .* is outside the workspace/);
    await expect(body({ pattern: '*', path: 'missing' })).rejects.toThrow(`Error: ${ws.root}/missing does not exist.`);
  });
});
