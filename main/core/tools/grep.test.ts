import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { grepTool, type GrepArgs } from './grep.js';
import { makeContext, makeTempRoot } from '../../../test/toolContext.js';

let ws: ReturnType<typeof makeTempRoot>;

beforeEach(() => {
  ws = makeTempRoot({
    'src/b.ts': 'const x = 1;\nfoo();\n',
    'src/a.ts': 'foo bar\r\nnothing\r\nfoo again\r\n',
    'docs/notes.md': 'foo in docs\n',
    'node_modules/dep/i.ts': 'foo hidden\n',
    'blob.bin': Buffer.concat([Buffer.from('foo binary\n'), Buffer.from([0, 1, 2])]),
    'latin1.txt': Buffer.from([0x66, 0x6f, 0x6f, 0xe9, 0x0a]),
  });
});
afterEach(() => ws.remove());

const body = async (args: GrepArgs): Promise<string> => {
  const out = await grepTool.run(args, makeContext(ws.root));
  if (out.kind !== 'text') throw new Error('expected text');
  return out.body;
};

describe('grep', () => {
  it('lists ABS:LINE: text, files sorted, lines in order, CR not shown, binary and non-UTF-8 skipped', async () => {
    const r = ws.root;
    expect(await body({ pattern: 'fo+' })).toBe(
      [`${r}/docs/notes.md:1: foo in docs`, `${r}/src/a.ts:1: foo bar`, `${r}/src/a.ts:3: foo again`, `${r}/src/b.ts:2: foo();`].join(
        '\n',
      ),
    );
  });

  it('filters by include, on the file name or the relative path', async () => {
    const r = ws.root;
    expect(await body({ pattern: 'foo', include: '*.md' })).toBe(`${r}/docs/notes.md:1: foo in docs`);
    expect(await body({ pattern: 'foo', include: 'src/b.*' })).toBe(`${r}/src/b.ts:2: foo();`);
  });

  it('searches one file when path is a file', async () => {
    expect(await body({ pattern: '^const', path: 'src/b.ts' })).toBe(`${ws.root}/src/b.ts:1: const x = 1;`);
  });

  it('answers no match with the pattern and the absolute path', async () => {
    expect(await body({ pattern: 'zzz', path: 'src' })).toBe(`No matches for zzz in ${ws.root}/src.`);
  });

  it('refuses an invalid regular expression', async () => {
    await expect(body({ pattern: 'foo(' })).rejects.toThrow(/^Error: foo\( is not a valid regular expression/);
  });

  it('refuses a path outside the workspace and a missing one, naming the absolute path', async () => {
    await expect(body({ pattern: 'x', path: '/' })).rejects.toThrow(`Error: / is outside the workspace ${ws.root}`);
    await expect(body({ pattern: 'x', path: 'nope.ts' })).rejects.toThrow(`Error: ${ws.root}/nope.ts does not exist.`);
  });
});
