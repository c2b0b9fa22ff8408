/**
 * Issue 35 class 5: a rewind and Revert file racing a process in the workspace that keeps swapping a
 * folder for a link to a folder outside (`d` ⇄ `d -> ../outdir`). Whatever the interleaving, nothing
 * outside is written, renamed or removed: every step goes through folder handles opened without
 * following links (putBack.ts). The control: with no one racing, the same rewind puts everything back.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { snapshotTree } from '../../test/outsideTree.js';
import { GitCheckpoints } from './gitCheckpoints.js';

const N = 300;
const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()!();
});

/** A workspace whose folder `d` holds N files, a session turn that rewrote them and created 50 more, and a bait folder outside. */
function setup() {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-race-')));
  cleanups.push(() => fs.rmSync(base, { recursive: true, force: true }));
  const root = path.join(base, 'ws');
  const outdir = path.join(base, 'outdir');
  fs.mkdirSync(path.join(root, 'd'), { recursive: true });
  fs.mkdirSync(outdir);
  for (let i = 1; i <= N; i++) fs.writeFileSync(path.join(root, 'd', `f${i}.txt`), `old ${i}\n`);
  // The bait: files with the names the rewind writes and removes.
  for (let i = 1; i <= N; i++) fs.writeFileSync(path.join(outdir, `f${i}.txt`), `outside ${i}\n`);
  for (let i = 1; i <= 50; i++) fs.writeFileSync(path.join(outdir, `c${i}.txt`), `outside c${i}\n`);
  const cp = new GitCheckpoints({ dir: path.join(base, 'data', 'cp'), root, fresh: true, watch: false });
  cleanups.push(() => cp.close());
  cp.turnStarted(1);
  cp.beforeCall(1);
  for (let i = 1; i <= N; i++) fs.writeFileSync(path.join(root, 'd', `f${i}.txt`), `new ${i}\n`);
  for (let i = 1; i <= 50; i++) fs.writeFileSync(path.join(root, 'd', `c${i}.txt`), `created ${i}\n`);
  cp.afterCall(1);
  return { base, root, outdir, cp };
}

/** A process that swaps `d` for a link to ../outdir and back, as fast as it can, until killed. */
function swapper(root: string): ChildProcess {
  const child = spawn('sh', ['-c', 'while :; do mv d d.real 2>/dev/null && ln -s ../outdir d && rm -f d && mv d.real d; done'], { cwd: root, stdio: 'ignore' });
  cleanups.push(() => child.kill('SIGKILL'));
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  const closed = new Promise((r) => child.once('close', r));
  child.kill('SIGKILL');
  await closed;
}

describe('rewind and Revert file racing a folder swapped for a link', { timeout: 120_000 }, () => {
  test('three rewinds of 300 files with a swapper running: nothing outside the workspace changes', async () => {
    for (let run = 0; run < 3; run++) {
      const { root, outdir, cp } = setup();
      const outside = snapshotTree(outdir);
      const child = swapper(root);
      await new Promise((r) => setTimeout(r, 50));
      try {
        cp.rewind(1, () => {});
      } catch {
        // A rewind that meets the link mid-way may stop; it must not have gone outside.
      }
      await stop(child);
      expect(snapshotTree(outdir), `run ${run}`).toEqual(outside);
      expect(fs.readdirSync(outdir).filter((f) => f.includes('keel-restore'))).toEqual([]);
    }
  });

  test('Revert file with a swapper running writes nothing outside', async () => {
    const { root, outdir, cp } = setup();
    const outside = snapshotTree(outdir);
    const child = swapper(root);
    await new Promise((r) => setTimeout(r, 50));
    for (let i = 1; i <= 100; i++) {
      try {
        cp.revertFile(`d/f${i}.txt`);
      } catch {
        // refused where the way was a link: fine
      }
    }
    await stop(child);
    expect(snapshotTree(outdir)).toEqual(outside);
  });

  test('the control: with no one racing, the rewind puts all 300 back and removes the 50 it created', () => {
    const { root, outdir, cp } = setup();
    const outside = snapshotTree(outdir);
    const plan = cp.rewind(1, () => {});
    expect(plan.left).toEqual([]);
    expect(fs.readFileSync(path.join(root, 'd', 'f300.txt'), 'utf8')).toBe('old 300\n');
    expect(fs.existsSync(path.join(root, 'd', 'c1.txt'))).toBe(false);
    expect(fs.readdirSync(path.join(root, 'd'))).toHaveLength(N);
    expect(snapshotTree(outdir)).toEqual(outside);
  });
});
