import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempRoot } from '../../../test/toolContext.js';
import { isWriteLeftover, walkFiles } from './walk.js';

let ws: ReturnType<typeof makeTempRoot>;
let outside: ReturnType<typeof makeTempRoot>;

beforeEach(() => {
  ws = makeTempRoot();
  outside = makeTempRoot({ 'secret.txt': 'secret\n', 'deep/more.txt': 'more\n' });
});
afterEach(() => {
  ws.remove();
  outside.remove();
});

function write(files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(ws.root, rel)), { recursive: true });
    fs.writeFileSync(path.join(ws.root, rel), content);
  }
}
const rel = (files: string[]): string[] => files.map((f) => path.relative(ws.root, f));

describe('walkFiles', () => {
  it('returns absolute paths sorted in code-unit order', () => {
    write({ 'b.txt': '', 'a/x.txt': '', 'a.txt': '', 'B.txt': '', 'é.txt': '', 'a/Z/y.txt': '' });
    const files = walkFiles(ws.root, ws.root);
    expect(files.every((f) => path.isAbsolute(f) && f.startsWith(ws.root + '/'))).toBe(true);
    // '.' (0x2e) sorts before '/' (0x2f); upper case before lower case; é last.
    expect(rel(files)).toEqual(['B.txt', 'a.txt', 'a/Z/y.txt', 'a/x.txt', 'b.txt', 'é.txt']);
  });

  it('skips .git and node_modules folders but keeps other dot files', () => {
    write({ '.git/config': '', 'node_modules/p/index.js': '', 'src/node_modules/q.js': '', '.env': '', 'src/.hidden': '' });
    expect(rel(walkFiles(ws.root, ws.root))).toEqual(['.env', 'src/.hidden']);
  });

  it('walks from a subfolder only', () => {
    write({ 'top.txt': '', 'sub/inner.txt': '' });
    expect(rel(walkFiles(ws.root, path.join(ws.root, 'sub')))).toEqual(['sub/inner.txt']);
  });

  it('does not follow symlinks out of the workspace, nor symlinked folders inside it', () => {
    write({ 'real/file.txt': '', 'plain.txt': '' });
    fs.symlinkSync(outside.root, path.join(ws.root, 'out-dir'));
    fs.symlinkSync(path.join(outside.root, 'secret.txt'), path.join(ws.root, 'out-file.txt'));
    fs.symlinkSync(path.join(ws.root, 'real'), path.join(ws.root, 'in-dir'));
    fs.symlinkSync(path.join(ws.root, 'plain.txt'), path.join(ws.root, 'in-file.txt'));
    fs.symlinkSync(path.join(ws.root, 'missing'), path.join(ws.root, 'dangling.txt'));
    fs.symlinkSync(ws.root, path.join(ws.root, 'real', 'loop'));
    expect(rel(walkFiles(ws.root, ws.root))).toEqual(['in-file.txt', 'plain.txt', 'real/file.txt']);
  });

  it.skipIf(process.getuid?.() === 0)('skips an unreadable subfolder without throwing', () => {
    write({ 'ok.txt': '', 'locked/hidden.txt': '' });
    const locked = path.join(ws.root, 'locked');
    fs.chmodSync(locked, 0o000);
    try {
      expect(rel(walkFiles(ws.root, ws.root))).toEqual(['ok.txt']);
    } finally {
      fs.chmodSync(locked, 0o755);
    }
  });
});

describe('leftovers of an interrupted atomic write', () => {
  it('are recognised by their name alone', () => {
    expect(isWriteLeftover('.a.ts.keel-1234-0badf00d.tmp')).toBe(true);
    expect(isWriteLeftover('a.ts')).toBe(false);
    expect(isWriteLeftover('.a.ts.keel-x-0badf00d.tmp')).toBe(false);
  });
});
