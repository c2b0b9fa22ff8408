import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sha256 } from '../workspace/files.js';
import { editTool } from './edit.js';
import { readTool } from './read.js';
import { makeContext, makeTempRoot } from '../../../test/toolContext.js';
import type { ToolContext } from './types.js';
import { writeTool } from './write.js';

let temp: ReturnType<typeof makeTempRoot> | undefined;
afterEach(() => temp?.remove());

const setup = (files: Record<string, string | Buffer>) => {
  temp = makeTempRoot(files);
  return { root: temp.root, ctx: makeContext(temp.root), file: (name: string) => fs.readFileSync(path.join(temp!.root, name)) };
};

describe('byte-exact file tools on hostile input', () => {
  it('edits one line of a mixed-ending file and leaves every other byte as it was', async () => {
    const { ctx, file } = setup({ 'mixed.txt': 'a\r\nb\nc\rd\r\ne\n' });
    await editTool.run({ path: 'mixed.txt', old_string: 'b', new_string: 'B' }, ctx);
    expect(file('mixed.txt').toString('latin1')).toBe('a\r\nB\nc\rd\r\ne\n');
    await editTool.run({ path: 'mixed.txt', old_string: 'd\ne', new_string: 'D\nE' }, ctx);
    expect(file('mixed.txt').toString('latin1')).toBe('a\r\nB\nc\rD\r\nE\n');
  });

  it('shows a lone CR inside a line as part of it, and keeps it through an edit', async () => {
    const { ctx, file } = setup({ 'cr.txt': 'x\ry\nz\n' });
    const read = await readTool.run({ path: 'cr.txt' }, ctx);
    expect(read.kind === 'read' && read.lines).toEqual(['x\ry', 'z']);
    await editTool.run({ path: 'cr.txt', old_string: 'z', new_string: 'Z' }, ctx);
    expect(file('cr.txt').toString('latin1')).toBe('x\ry\nZ\n');
  });

  it('reads a 50 MB file in a 2000-line window and hashes all of it', async () => {
    const line = 'x'.repeat(99) + '\n';
    const big = Buffer.from(line.repeat(500_000));
    const { ctx } = setup({ 'big.txt': big });
    const read = await readTool.run({ path: 'big.txt', offset: 400_000, limit: 5000 }, ctx);
    expect(read).toMatchObject({ kind: 'read', total: 500_000, start: 400_000, end: 401_999, hash: sha256(big) });
  });

  it('refuses NUL bytes and invalid UTF-8 without changing the file', async () => {
    const nul = Buffer.from('text\0more\n');
    const bad = Buffer.from([0x61, 0xff, 0xfe, 0x0a]);
    const { ctx, root, file } = setup({ 'nul.bin': nul, 'bad.txt': bad });
    await expect(readTool.run({ path: 'nul.bin' }, ctx)).rejects.toThrow(`${path.join(root, 'nul.bin')} is a binary file`);
    await expect(editTool.run({ path: 'bad.txt', old_string: 'a', new_string: 'b' }, ctx)).rejects.toThrow('not valid UTF-8');
    expect(file('nul.bin').equals(nul) && file('bad.txt').equals(bad)).toBe(true);
  });

  it('judges a change on disk by content, not time: a touch is no conflict, a real change is', async () => {
    const { ctx, root, file } = setup({ 'a.txt': 'one\n' });
    const known: ToolContext = { ...ctx, knownHash: () => sha256(Buffer.from('one\n')) };
    fs.utimesSync(path.join(root, 'a.txt'), new Date(2030, 1, 1), new Date(2030, 1, 1));
    await editTool.run({ path: 'a.txt', old_string: 'one', new_string: 'two' }, known);
    expect(file('a.txt').toString()).toBe('two\n');
    await expect(writeTool.run({ path: 'a.txt', content: 'three\n' }, known)).rejects.toThrow('has changed on disk');
    expect(file('a.txt').toString()).toBe('two\n');
  });
});
