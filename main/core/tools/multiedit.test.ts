import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha256 } from '../workspace/files.js';
import { multieditTool } from './multiedit.js';
import { makeContext, makeTempRoot } from '../../../test/toolContext.js';
import type { FileChange, ToolContext } from './types.js';

let ws: ReturnType<typeof makeTempRoot>;

beforeEach(() => {
  ws = makeTempRoot({ 'f.txt': 'alpha\nbeta\ngamma\n' });
});
afterEach(() => ws.remove());

const abs = (rel: string): string => path.join(ws.root, rel);
const bytes = (rel: string): Buffer => fs.readFileSync(abs(rel));

type Edit = { old_string: string; new_string: string; replace_all?: boolean };

async function multiedit(edits: Edit[], ctx: ToolContext = makeContext(ws.root), file = 'f.txt'): Promise<FileChange> {
  const out = await multieditTool.run({ path: file, edits }, ctx);
  if (out.kind !== 'change' || out.files.length !== 1) throw new Error('expected one change');
  return out.files[0]!;
}

describe('multiedit', () => {
  it('applies edits in order, each to the result of the one before, as one change', async () => {
    const change = await multiedit([
      { old_string: 'alpha', new_string: 'ALPHA' },
      { old_string: 'ALPHA\nbeta', new_string: 'ALPHA\nBETA' }, // sees the first edit's result
      { old_string: 'a', new_string: 'A', replace_all: true },
    ]);
    const after = 'ALPHA\nBETA\ngAmmA\n';
    expect(bytes('f.txt').toString()).toBe(after);
    expect([change.action, change.before, change.after, change.hash]).toEqual(['modified', 'alpha\nbeta\ngamma\n', after, sha256(after)]);
  });

  it('is all or nothing: a failing second edit leaves the file untouched', async () => {
    const before = bytes('f.txt');
    await expect(
      multiedit([
        { old_string: 'alpha', new_string: 'ALPHA' },
        { old_string: 'delta', new_string: 'DELTA' },
      ]),
    ).rejects.toThrow(`Error: edit 2 of 2: old_string was not found in ${abs('f.txt')}. Nothing was changed.`);
    expect(bytes('f.txt')).toEqual(before);
    expect(fs.readdirSync(ws.root)).toEqual(['f.txt']);
  });

  it('fails an edit whose text an earlier edit removed', async () => {
    await expect(
      multiedit([
        { old_string: 'beta', new_string: 'b' },
        { old_string: 'beta', new_string: 'B' },
      ]),
    ).rejects.toThrow('Error: edit 2 of 2: old_string was not found');
    expect(bytes('f.txt').toString()).toBe('alpha\nbeta\ngamma\n');
  });

  it('fails an edit that becomes ambiguous after an earlier one', async () => {
    await expect(
      multiedit([
        { old_string: 'alpha', new_string: 'gamma' },
        { old_string: 'gamma', new_string: 'x' },
      ]),
    ).rejects.toThrow(`Error: edit 2 of 2: old_string occurs 2 times in ${abs('f.txt')}`);
  });

  it('names no index for a single edit', async () => {
    await expect(multiedit([{ old_string: 'zzz', new_string: 'x' }])).rejects.toThrow(/^Error: old_string was not found/);
  });

  it('answers unchanged when the edits cancel out', async () => {
    const change = await multiedit([
      { old_string: 'beta', new_string: 'BETA' },
      { old_string: 'BETA', new_string: 'beta' },
    ]);
    expect(change.action).toBe('unchanged');
  });

  it('keeps CRLF and a BOM', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    fs.writeFileSync(abs('w.txt'), Buffer.concat([bom, Buffer.from('a\r\nb\r\nc\r\n')]));
    await multiedit([
      { old_string: 'a\nb', new_string: 'A\nB' },
      { old_string: 'c\n', new_string: 'c\nd\n' },
    ], makeContext(ws.root), 'w.txt');
    expect(bytes('w.txt')).toEqual(Buffer.concat([bom, Buffer.from('A\r\nB\r\nc\r\nd\r\n')]));
  });

  it('refuses a conflict before any edit', async () => {
    const ctx: ToolContext = { ...makeContext(ws.root), knownHash: () => sha256('other') };
    await expect(multiedit([{ old_string: 'alpha', new_string: 'x' }], ctx)).rejects.toThrow(
      `Error: ${abs('f.txt')} has changed on disk`,
    );
    expect(bytes('f.txt').toString()).toBe('alpha\nbeta\ngamma\n');
  });
});
