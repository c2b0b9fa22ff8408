import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempRoot } from '../../../test/toolContext.js';
import { atomicWrite, readTextFile, sha256 } from './files.js';

let ws: ReturnType<typeof makeTempRoot>;
beforeEach(() => {
  ws = makeTempRoot();
});
afterEach(() => ws.remove());

const abs = (rel: string): string => path.join(ws.root, rel);
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

describe('readTextFile', () => {
  it('decodes UTF-8, removes a BOM from the text and hashes the raw bytes', () => {
    const raw = Buffer.concat([BOM, Buffer.from('é\r\n')]);
    fs.writeFileSync(abs('f.txt'), raw);
    const file = readTextFile(abs('f.txt'));
    expect(file).toEqual({ absPath: abs('f.txt'), raw, text: 'é\r\n', bom: true, hash: sha256(raw) });
  });

  it('keeps a second BOM-like character that is not at the start', () => {
    fs.writeFileSync(abs('f.txt'), 'a\uFEFFb');
    expect(readTextFile(abs('f.txt'))).toMatchObject({ text: 'a\uFEFFb', bom: false });
  });

  it('looks for NUL only in the first 8000 bytes', () => {
    fs.writeFileSync(abs('late.txt'), Buffer.concat([Buffer.alloc(8000, 0x61), Buffer.from([0])]));
    expect(readTextFile(abs('late.txt')).text).toHaveLength(8001);
    fs.writeFileSync(abs('early.bin'), Buffer.concat([Buffer.alloc(7999, 0x61), Buffer.from([0])]));
    expect(() => readTextFile(abs('early.bin'))).toThrow('is a binary file');
  });

  it('refuses a truncated multi-byte sequence', () => {
    fs.writeFileSync(abs('cut.txt'), Buffer.from('é').subarray(0, 1));
    expect(() => readTextFile(abs('cut.txt'))).toThrow(`Error: ${abs('cut.txt')} is not valid UTF-8`);
  });

  it('names the path for a missing file, a directory and a file used as a folder', () => {
    fs.writeFileSync(abs('file'), 'x');
    expect(() => readTextFile(abs('missing'))).toThrow(`Error: ${abs('missing')} does not exist.`);
    expect(() => readTextFile(ws.root)).toThrow(`Error: ${ws.root} is a directory, not a file`);
    expect(() => readTextFile(abs('file/below'))).toThrow(`Error: a part of ${abs('file/below')} is a file, not a directory.`);
  });
});

describe('atomicWrite', () => {
  it('creates parents, writes the bytes and leaves no temporary file', () => {
    atomicWrite(abs('a/b/c.txt'), 'hello');
    expect(fs.readFileSync(abs('a/b/c.txt'), 'utf8')).toBe('hello');
    expect(fs.readdirSync(abs('a/b'))).toEqual(['c.txt']);
  });

  it('replaces the file (a new inode) and keeps its mode', () => {
    fs.writeFileSync(abs('x.sh'), 'old');
    fs.chmodSync(abs('x.sh'), 0o750);
    atomicWrite(abs('x.sh'), Buffer.from('new'));
    expect(fs.readFileSync(abs('x.sh'), 'utf8')).toBe('new');
    expect(fs.statSync(abs('x.sh')).mode & 0o777).toBe(0o750);
    expect(fs.readdirSync(ws.root)).toEqual(['x.sh']);
  });

  it('refuses a directory and a parent that is a file, leaving nothing behind', () => {
    fs.mkdirSync(abs('dir'));
    fs.writeFileSync(abs('file'), 'x');
    expect(() => atomicWrite(abs('dir'), 'x')).toThrow(`Error: ${abs('dir')} is a directory`);
    expect(() => atomicWrite(abs('file/x.txt'), 'x')).toThrow(`Error: a part of ${abs('file/x.txt')} is a file, not a directory.`);
    expect(fs.readdirSync(ws.root).sort()).toEqual(['dir', 'file']);
    expect(fs.readdirSync(abs('dir'))).toEqual([]);
  });
});
