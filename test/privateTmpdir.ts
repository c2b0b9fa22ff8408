import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/**
 * Gives this test file a temp folder of its own (TMPDIR, which os.tmpdir() reads at each call and
 * each vitest worker keeps apart): a test that counts the sandbox's `keel-cmd-*` folders counts
 * only its own, not those of other test files running beside it.
 */
export function usePrivateTmpdir(): void {
  const saved = process.env.TMPDIR;
  let dir = '';
  beforeAll(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-tmpdir-')));
    process.env.TMPDIR = dir;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    fs.rmSync(dir, { recursive: true, force: true });
  });
}
