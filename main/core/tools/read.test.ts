import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readTool } from './read.js';
import { makeContext, makeTempRoot } from '../../../test/toolContext.js';
import type { RawOutput } from './types.js';

let ws: ReturnType<typeof makeTempRoot>;
let outside: ReturnType<typeof makeTempRoot>;

beforeEach(() => {
  ws = makeTempRoot();
  outside = makeTempRoot({ 'secret.txt': 'secret\n' });
});
afterEach(() => {
  ws.remove();
  outside.remove();
});

type Read = Extract<RawOutput, { kind: 'read' }>;

function put(rel: string, content: string | Buffer): string {
  const abs = path.join(ws.root, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, content);
  return abs;
}

async function read(args: { path: string; offset?: number; limit?: number }): Promise<Read> {
  const out = await readTool.run(args, makeContext(ws.root));
  if (out.kind !== 'read') throw new Error(`expected a read, got ${out.kind}`);
  return out;
}

const numbered = (n: number, from = 1): string => Array.from({ length: n }, (_, i) => `line ${i + from}`).join('\n') + '\n';
const sha = (data: string | Buffer): string => crypto.createHash('sha256').update(data).digest('hex');

describe('read: windows', () => {
  it('reads a whole small file, with the path as given and the absolute path', async () => {
    const abs = put('src/app.ts', 'line 1\nline 2\n');
    const out = await read({ path: './src/app.ts' });
    expect(out).toEqual({
      kind: 'read', pathGiven: './src/app.ts', absPath: abs, hash: sha('line 1\nline 2\n'),
      total: 2, start: 1, end: 2, lines: ['line 1', 'line 2'],
    });
  });

  it('counts a last line without a newline', async () => {
    put('a.txt', 'a\nb');
    const out = await read({ path: 'a.txt' });
    expect([out.total, out.end, out.lines]).toEqual([2, 2, ['a', 'b']]);
  });

  it('keeps an empty line in the middle and at the end', async () => {
    put('a.txt', 'a\n\nb\n\n');
    expect((await read({ path: 'a.txt' })).lines).toEqual(['a', '', 'b', '']);
  });

  it('shows offset and limit, cut at the end of the file', async () => {
    put('f.txt', numbered(10));
    const mid = await read({ path: 'f.txt', offset: 4, limit: 3 });
    expect([mid.start, mid.end, mid.total, mid.lines]).toEqual([4, 6, 10, ['line 4', 'line 5', 'line 6']]);
    const tail = await read({ path: 'f.txt', offset: 9, limit: 50 });
    expect([tail.start, tail.end, tail.lines]).toEqual([9, 10, ['line 9', 'line 10']]);
    const last = await read({ path: 'f.txt', offset: 10 });
    expect([last.start, last.end, last.lines]).toEqual([10, 10, ['line 10']]);
  });

  it('shows at most 2000 lines by default', async () => {
    put('big.txt', numbered(2500));
    const out = await read({ path: 'big.txt' });
    expect([out.start, out.end, out.total, out.lines.length]).toEqual([1, 2000, 2500, 2000]);
    expect(out.lines[1999]).toBe('line 2000');
    const rest = await read({ path: 'big.txt', offset: 2001 });
    expect([rest.start, rest.end, rest.lines.length, rest.lines[0]]).toEqual([2001, 2500, 500, 'line 2001']);
  });

  it('cuts a limit over 2000 to 2000', async () => {
    put('big.txt', numbered(2500));
    const out = await read({ path: 'big.txt', offset: 2, limit: 5000 });
    expect([out.start, out.end, out.lines.length]).toEqual([2, 2001, 2000]);
  });

  it('refuses an offset past the end, naming the absolute path and the line count', async () => {
    const abs = put('f.txt', numbered(3));
    await expect(read({ path: 'f.txt', offset: 4 })).rejects.toThrow(`Error: offset 4 is past the end of ${abs}, which has 3 lines.`);
    const one = put('one.txt', 'x');
    await expect(read({ path: 'one.txt', offset: 2 })).rejects.toThrow(`${one}, which has 1 line.`);
  });

  it('answers an empty file with total 0 and no lines, and refuses offset 2 on it', async () => {
    const abs = put('empty.txt', '');
    const out = await read({ path: 'empty.txt' });
    expect([out.total, out.start, out.end, out.lines, out.hash]).toEqual([0, 1, 0, [], sha('')]);
    expect(out.hash.startsWith('e3b0c442')).toBe(true);
    await expect(read({ path: 'empty.txt', offset: 2 })).rejects.toThrow(`${abs}, which has 0 lines.`);
  });

  it('shows a 10,000-character line whole', async () => {
    const long = 'x'.repeat(10_000);
    put('long.txt', `${long}\nshort\n`);
    const out = await read({ path: 'long.txt' });
    expect(out.lines[0]).toHaveLength(10_000);
    expect(out.lines).toEqual([long, 'short']);
  });
});

describe('read: bytes', () => {
  it('shows CRLF lines without \\r, and hashes the raw bytes', async () => {
    const raw = 'one\r\ntwo\r\nthree';
    put('crlf.txt', raw);
    const out = await read({ path: 'crlf.txt' });
    expect(out.lines).toEqual(['one', 'two', 'three']);
    expect(out.total).toBe(3);
    expect(out.hash).toBe(sha(raw));
    expect(out.hash).not.toBe(sha('one\ntwo\nthree'));
  });

  it('does not show a BOM in line 1, but hashes it', async () => {
    const raw = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('first\nsecond\n')]);
    put('bom.txt', raw);
    const out = await read({ path: 'bom.txt' });
    expect(out.lines).toEqual(['first', 'second']);
    expect(out.hash).toBe(sha(raw));
  });

  it('keeps a lone CR inside a line and at the very end', async () => {
    put('cr.txt', 'a\rb\nc\r');
    expect((await read({ path: 'cr.txt' })).lines).toEqual(['a\rb', 'c\r']);
  });

  it('refuses a binary file (a NUL byte), naming it', async () => {
    const abs = put('bin.dat', Buffer.from([0x41, 0x00, 0x42, 0x0a]));
    await expect(read({ path: 'bin.dat' })).rejects.toThrow(`Error: ${abs} is a binary file`);
  });

  it('refuses invalid UTF-8, naming it', async () => {
    const abs = put('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    await expect(read({ path: 'latin1.txt' })).rejects.toThrow(`Error: ${abs} is not valid UTF-8`);
  });

  it('reads multi-byte UTF-8 text', async () => {
    put('u.txt', 'héllo wörld — ✓ 😀\n');
    expect((await read({ path: 'u.txt' })).lines).toEqual(['héllo wörld — ✓ 😀']);
  });
});

describe('read: paths', () => {
  it('refuses a directory, naming it', async () => {
    fs.mkdirSync(path.join(ws.root, 'dir'));
    await expect(read({ path: 'dir' })).rejects.toThrow(`Error: ${ws.root}/dir is a directory`);
    await expect(read({ path: '.' })).rejects.toThrow(`Error: ${ws.root} is a directory`);
  });

  it('refuses a missing file, naming the absolute path', async () => {
    await expect(read({ path: 'nope/missing.txt' })).rejects.toThrow(`Error: ${ws.root}/nope/missing.txt does not exist.`);
  });

  it('refuses a FIFO instead of blocking on it', async () => {
    const fifo = path.join(ws.root, 'pipe');
    try {
      (await import('node:child_process')).execFileSync('mkfifo', [fifo]);
    } catch {
      return; // no mkfifo here
    }
    await expect(read({ path: 'pipe' })).rejects.toThrow(`Error: ${fifo} is not a regular file`);
  });

  it('reads an absolute path inside the workspace', async () => {
    const abs = put('x.txt', 'x\n');
    expect((await read({ path: abs })).absPath).toBe(abs);
  });

  it('refuses ../ out of the workspace, naming the absolute path', async () => {
    const target = path.join(path.dirname(ws.root), 'x');
    await expect(read({ path: '../x' })).rejects.toThrow(`Error: ${target} is outside the workspace ${ws.root}`);
  });

  it('refuses an absolute path outside', async () => {
    await expect(read({ path: '/etc/hosts' })).rejects.toThrow(`Error: ${fs.realpathSync('/etc/hosts')} is outside the workspace`);
  });

  it('refuses a sibling folder whose name starts with the root name', async () => {
    const evil = `${ws.root}-evil`;
    fs.mkdirSync(evil);
    fs.writeFileSync(path.join(evil, 'x.txt'), 'evil\n');
    try {
      await expect(read({ path: path.join(evil, 'x.txt') })).rejects.toThrow(`Error: ${evil}/x.txt is outside the workspace`);
      await expect(read({ path: `../${path.basename(evil)}/x.txt` })).rejects.toThrow('is outside the workspace');
    } finally {
      fs.rmSync(evil, { recursive: true, force: true });
    }
  });

  it('refuses a symlink inside that points to a file outside, naming the target', async () => {
    const secret = path.join(outside.root, 'secret.txt');
    fs.symlinkSync(secret, path.join(ws.root, 'link.txt'));
    await expect(read({ path: 'link.txt' })).rejects.toThrow(`Error: ${secret} is outside the workspace`);
  });

  it('refuses a file under a symlinked folder that points outside', async () => {
    fs.symlinkSync(outside.root, path.join(ws.root, 'outdir'));
    await expect(read({ path: 'outdir/secret.txt' })).rejects.toThrow(`Error: ${outside.root}/secret.txt is outside`);
    await expect(read({ path: 'outdir/missing.txt' })).rejects.toThrow(`Error: ${outside.root}/missing.txt is outside`);
  });

  it('refuses a dangling symlink that points outside, naming where it points', async () => {
    const missing = path.join(outside.root, 'not-yet.txt');
    fs.symlinkSync(missing, path.join(ws.root, 'dangling.txt'));
    await expect(read({ path: 'dangling.txt' })).rejects.toThrow(`Error: ${missing} is outside the workspace`);
  });

  it('follows a dangling relative link from its folder\'s real path, not the path given', async () => {
    // a/b/via -> top; top/link -> ../../escaped.txt. From top's real path that is outside the root;
    // taken lexically from a/b/via it would be a/escaped.txt, inside.
    fs.mkdirSync(path.join(ws.root, 'top'));
    fs.mkdirSync(path.join(ws.root, 'a', 'b'), { recursive: true });
    fs.symlinkSync(path.join(ws.root, 'top'), path.join(ws.root, 'a', 'b', 'via'));
    fs.symlinkSync('../../escaped.txt', path.join(ws.root, 'top', 'link'));
    const target = path.join(path.dirname(ws.root), 'escaped.txt');
    await expect(read({ path: 'a/b/via/link' })).rejects.toThrow(`Error: ${target} is outside the workspace`);
    // And the other way round: a real path deeper than the given one stays inside.
    fs.mkdirSync(path.join(ws.root, 'x', 'y'), { recursive: true });
    fs.symlinkSync(path.join(ws.root, 'x', 'y'), path.join(ws.root, 'shallow'));
    fs.symlinkSync('../../missing.txt', path.join(ws.root, 'x', 'y', 'link'));
    await expect(read({ path: 'shallow/link' })).rejects.toThrow(`Error: ${ws.root}/missing.txt does not exist.`);
  });

  it('resolves a symlink to a file inside to its target path', async () => {
    const real = put('real/target.txt', 'hello\n');
    fs.symlinkSync(real, path.join(ws.root, 'alias.txt'));
    fs.symlinkSync('real', path.join(ws.root, 'alias-dir'));
    const viaFile = await read({ path: 'alias.txt' });
    expect([viaFile.pathGiven, viaFile.absPath, viaFile.lines]).toEqual(['alias.txt', real, ['hello']]);
    expect((await read({ path: 'alias-dir/target.txt' })).absPath).toBe(real);
  });

  it('refuses a symlink loop without hanging', async () => {
    fs.symlinkSync('b', path.join(ws.root, 'a'));
    fs.symlinkSync('a', path.join(ws.root, 'b'));
    await expect(read({ path: 'a' })).rejects.toThrow(/^Error: /);
  });

  it('refuses an empty path', async () => {
    await expect(read({ path: '' })).rejects.toThrow('Error: the path is empty.');
  });
});
