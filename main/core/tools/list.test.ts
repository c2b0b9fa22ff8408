import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listTool } from './list.js';
import { makeContext, makeTempRoot } from '../../../test/toolContext.js';

let ws: ReturnType<typeof makeTempRoot>;
let outside: ReturnType<typeof makeTempRoot>;

beforeEach(() => {
  ws = makeTempRoot({ 'b.txt': 'b', 'a.txt': 'a', 'Z.md': 'z', 'src/main.ts': '', '.git/HEAD': '', 'node_modules/x/i.js': '' });
  outside = makeTempRoot({ 'secret.txt': 'secret' });
});
afterEach(() => {
  ws.remove();
  outside.remove();
});

const body = async (args: { path?: string }): Promise<string> => {
  const out = await listTool.run(args, makeContext(ws.root));
  if (out.kind !== 'text') throw new Error('expected text');
  return out.body;
};

describe('list', () => {
  it('lists one folder, sorted, absolute, folders with a slash, .git included', async () => {
    const r = ws.root;
    expect(await body({})).toBe(
      [`${r}/.git/`, `${r}/Z.md`, `${r}/a.txt`, `${r}/b.txt`, `${r}/node_modules/`, `${r}/src/`].join('\n'),
    );
  });

  it('lists a subfolder given relatively, with its resolved absolute path', async () => {
    expect(await body({ path: './src/../src' })).toBe(`${ws.root}/src/main.ts`);
  });

  it('answers an empty folder with its absolute path', async () => {
    fs.mkdirSync(path.join(ws.root, 'empty'));
    expect(await body({ path: 'empty' })).toBe(`(empty folder ${ws.root}/empty)`);
  });

  it('leaves out symlinks that point outside the workspace; shows inside ones by their own name', async () => {
    fs.mkdirSync(path.join(ws.root, 'd'));
    fs.symlinkSync(outside.root, path.join(ws.root, 'd', 'out-dir'));
    fs.symlinkSync(path.join(outside.root, 'secret.txt'), path.join(ws.root, 'd', 'out-file'));
    fs.symlinkSync(path.join(ws.root, 'src'), path.join(ws.root, 'd', 'in-dir'));
    fs.symlinkSync(path.join(ws.root, 'a.txt'), path.join(ws.root, 'd', 'in-file'));
    expect(await body({ path: 'd' })).toBe(`${ws.root}/d/in-dir/\n${ws.root}/d/in-file`);
  });

  it('refuses a path outside the workspace, naming it absolutely', async () => {
    await expect(body({ path: '..' })).rejects.toThrow(
      `Error: ${path.dirname(ws.root)} is outside the workspace ${ws.root}`,
    );
    await expect(body({ path: outside.root })).rejects.toThrow(`Error: ${outside.root} is outside`);
  });

  it('refuses a missing folder and a file, naming the absolute path', async () => {
    await expect(body({ path: 'nope' })).rejects.toThrow(`Error: ${ws.root}/nope does not exist.`);
    await expect(body({ path: 'a.txt' })).rejects.toThrow(`Error: ${ws.root}/a.txt is a file, not a folder`);
  });
});
