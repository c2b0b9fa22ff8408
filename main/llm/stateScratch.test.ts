import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryScratch } from './stateScratch.js';

describe.runIf(process.platform === 'linux' && fs.existsSync('/dev/shm'))('a state written out to memory first', () => {
  it('is written through its descriptor, leaves no name behind, and reaches its file whole', async () => {
    const before = fs.readdirSync('/dev/shm').filter((n) => n.startsWith('keel-state-'));
    const scratch = memoryScratch(1 << 20)!;
    expect(scratch.path).toMatch(/^\/proc\/self\/fd\/\d+$/);
    // What node-llama-cpp does: open the path for writing (truncating), write, close.
    const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) % 256));
    fs.writeFileSync(scratch.path, bytes);
    expect(fs.readdirSync('/dev/shm').filter((n) => n.startsWith('keel-state-'))).toEqual(before);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-scratch-'));
    await scratch.moveTo(path.join(dir, 'state.bin'));
    expect(Buffer.compare(fs.readFileSync(path.join(dir, 'state.bin')), bytes)).toBe(0);
    expect(fs.existsSync(scratch.path)).toBe(false);
  });

  it('is not used where the state would not fit twice in memory, or its size is unknown', () => {
    expect(memoryScratch(os.totalmem())).toBeUndefined();
    expect(memoryScratch(Infinity)).toBeUndefined();
    expect(memoryScratch(0)).toBeUndefined();
  });
});
