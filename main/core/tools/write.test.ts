import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha256 } from '../workspace/files.js';
import { makeContext, makeTempRoot } from '../../../test/toolContext.js';
import type { FileChange, ToolContext } from './types.js';
import { writeTool } from './write.js';

let ws: ReturnType<typeof makeTempRoot>;

beforeEach(() => {
  ws = makeTempRoot({ 'old.txt': 'one\ntwo\n' });
});
afterEach(() => ws.remove());

const abs = (rel: string): string => path.join(ws.root, rel);
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

async function write(args: { path: string; content: string }, ctx: ToolContext = makeContext(ws.root)): Promise<FileChange> {
  const out = await writeTool.run(args, ctx);
  if (out.kind !== 'change' || out.files.length !== 1) throw new Error('expected one change');
  return out.files[0]!;
}

describe('write', () => {
  it('creates a new file and its parent folders', async () => {
    const change = await write({ path: 'a/b/c/new.md', content: 'hello\nworld\n' });
    expect(change).toEqual({
      pathGiven: 'a/b/c/new.md', absPath: abs('a/b/c/new.md'), action: 'created',
      before: '', after: 'hello\nworld\n', hash: sha256('hello\nworld\n'),
    });
    expect(fs.readFileSync(abs('a/b/c/new.md'), 'utf8')).toBe('hello\nworld\n');
  });

  it('creates an empty file', async () => {
    const change = await write({ path: 'empty.txt', content: '' });
    expect([change.action, change.hash]).toEqual(['created', sha256('')]);
    expect(fs.readFileSync(abs('empty.txt'))).toHaveLength(0);
  });

  it('overwrites an existing file: modified, with before and after', async () => {
    const change = await write({ path: 'old.txt', content: 'one\nTWO\n' });
    expect([change.action, change.before, change.after, change.hash]).toEqual(['modified', 'one\ntwo\n', 'one\nTWO\n', sha256('one\nTWO\n')]);
    expect(fs.readFileSync(abs('old.txt'), 'utf8')).toBe('one\nTWO\n');
  });

  it('answers unchanged for the same content and leaves the file alone', async () => {
    const past = new Date('2020-01-01T00:00:00Z');
    fs.utimesSync(abs('old.txt'), past, past);
    const inode = fs.statSync(abs('old.txt')).ino;
    const change = await write({ path: 'old.txt', content: 'one\ntwo\n' });
    expect([change.action, change.hash]).toEqual(['unchanged', sha256('one\ntwo\n')]);
    const st = fs.statSync(abs('old.txt'));
    expect(st.mtimeMs).toBe(past.getTime());
    expect(st.ino).toBe(inode);
  });

  it('keeps the mode of an existing file', async () => {
    fs.chmodSync(abs('old.txt'), 0o755);
    await write({ path: 'old.txt', content: '#!/bin/sh\necho hi\n' });
    expect(fs.statSync(abs('old.txt')).mode & 0o777).toBe(0o755);
    fs.chmodSync(abs('old.txt'), 0o600);
    await write({ path: 'old.txt', content: 'secret\n' });
    expect(fs.statSync(abs('old.txt')).mode & 0o777).toBe(0o600);
  });

  it.skipIf(process.getuid?.() === 0)('refuses a read-only file, naming it, and leaves it as it was', async () => {
    fs.chmodSync(abs('old.txt'), 0o444);
    await expect(write({ path: 'old.txt', content: 'x\n' })).rejects.toThrow(`Error: permission denied for ${abs('old.txt')}.`);
    expect(fs.readFileSync(abs('old.txt'), 'utf8')).toBe('one\ntwo\n');
  });

  it('keeps CRLF in a CRLF file when the content uses \\n', async () => {
    fs.writeFileSync(abs('win.txt'), 'a\r\nb\r\n');
    const change = await write({ path: 'win.txt', content: 'a\nB\nc\n' });
    expect(fs.readFileSync(abs('win.txt'), 'utf8')).toBe('a\r\nB\r\nc\r\n');
    expect([change.before, change.after, change.hash]).toEqual(['a\nb\n', 'a\nB\nc\n', sha256('a\r\nB\r\nc\r\n')]);
  });

  it('answers unchanged when \\n content equals a CRLF file', async () => {
    fs.writeFileSync(abs('win.txt'), 'a\r\nb\r\n');
    expect((await write({ path: 'win.txt', content: 'a\nb\n' })).action).toBe('unchanged');
  });

  it('writes a new file\'s content as given, CRLF included', async () => {
    await write({ path: 'new.txt', content: 'x\r\ny\n' });
    expect(fs.readFileSync(abs('new.txt'), 'utf8')).toBe('x\r\ny\n');
  });

  it('keeps the BOM of a file that had one', async () => {
    fs.writeFileSync(abs('bom.txt'), Buffer.concat([BOM, Buffer.from('a\n')]));
    const change = await write({ path: 'bom.txt', content: 'b\n' });
    const bytes = fs.readFileSync(abs('bom.txt'));
    expect(bytes).toEqual(Buffer.concat([BOM, Buffer.from('b\n')]));
    expect([change.before, change.after, change.hash]).toEqual(['a\n', 'b\n', sha256(bytes)]);
  });

  it('leaves no temporary file behind', async () => {
    await write({ path: 'old.txt', content: 'new\n' });
    await write({ path: 'fresh.txt', content: 'fresh\n' });
    await write({ path: 'old.txt', content: 'new\n' });
    expect(fs.readdirSync(ws.root).sort()).toEqual(['fresh.txt', 'old.txt']);
  });

  it('refuses a path outside the workspace and writes nothing', async () => {
    const target = path.join(path.dirname(ws.root), `${path.basename(ws.root)}-out.txt`);
    await expect(write({ path: target, content: 'x' })).rejects.toThrow(`Error: ${target} is outside the workspace`);
    expect(fs.existsSync(target)).toBe(false);
  });

  it('refuses a directory', async () => {
    fs.mkdirSync(abs('dir'));
    await expect(write({ path: 'dir', content: 'x' })).rejects.toThrow(`Error: ${abs('dir')} is a directory`);
  });

  it('refuses a conflict: the file changed since the session saw it', async () => {
    const ctx: ToolContext = { ...makeContext(ws.root), knownHash: () => sha256('something else') };
    await expect(write({ path: 'old.txt', content: 'x\n' }, ctx)).rejects.toThrow(
      `Error: ${abs('old.txt')} has changed on disk since this session last read or wrote it`,
    );
    expect(fs.readFileSync(abs('old.txt'), 'utf8')).toBe('one\ntwo\n');
    const fine: ToolContext = { ...makeContext(ws.root), knownHash: () => sha256('one\ntwo\n') };
    expect((await write({ path: 'old.txt', content: 'x\n' }, fine)).action).toBe('modified');
  });

  it('writes through a symlink inside the workspace to its target', async () => {
    fs.symlinkSync(abs('old.txt'), abs('alias.txt'));
    const change = await write({ path: 'alias.txt', content: 'via link\n' });
    expect(change.absPath).toBe(abs('old.txt'));
    expect(fs.lstatSync(abs('alias.txt')).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(abs('old.txt'), 'utf8')).toBe('via link\n');
  });
});
