import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitState, newStateFile, pruneStates, readMeta, removeStates } from './stateFiles.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-states-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Saves a fake state of `bytes` for session `id`, as the engine does. */
async function save(id: number, bytes: number, at: number): Promise<string> {
  const file = path.join(dir, `session-${id}.bin`);
  const state = newStateFile(file);
  fs.writeFileSync(state, Buffer.alloc(bytes));
  await commitState(file, state, { identity: 'x', tokens: bytes });
  fs.utimesSync(`${file}.json`, at, at);
  return file;
}

const names = () => fs.readdirSync(dir).sort();

describe('saved state files', () => {
  it('a save replaces the previous state and leaves no other file of the session, nor another session’s', async () => {
    await save(1, 10, 1000);
    await save(11, 10, 1000);
    fs.writeFileSync(path.join(dir, 'session-1.bin.half'), 'a kill left this');
    const file = await save(1, 20, 2000);
    const meta = readMeta(file);
    expect(meta.ok && meta.meta.bytes).toBe(20);
    expect(names().filter((n) => n.startsWith('session-1.bin'))).toEqual(['session-1.bin.json', meta.ok ? meta.meta.state : '']);
    expect(names().filter((n) => n.startsWith('session-11.bin'))).toHaveLength(2);
    removeStates(file);
    expect(names().every((n) => n.startsWith('session-11.bin'))).toBe(true);
  });

  it('keeps the most recently saved states within the budget, and always the one just saved', async () => {
    await save(1, 100, 1000);
    await save(2, 100, 2000);
    await save(3, 100, 3000);
    const newest = await save(4, 100, 4000);
    expect(pruneStates(dir, 250, newest).map((f) => path.basename(f)).sort()).toEqual(['session-1.bin', 'session-2.bin']);
    expect(names().filter((n) => n.endsWith('.json'))).toEqual(['session-3.bin.json', 'session-4.bin.json']);
    expect(pruneStates(dir, 10, newest).map((f) => path.basename(f))).toEqual(['session-3.bin']);
    expect(names().filter((n) => n.endsWith('.json'))).toEqual(['session-4.bin.json']);
  });
});
