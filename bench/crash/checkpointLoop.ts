/**
 * Crash safety of checkpoints, the third kill loop: a child (checkpointChild.ts) records turns of
 * changes and rewinds with files, and is killed with SIGKILL at seeded random moments — inside a
 * snapshot, a rewind, anywhere. After each kill the parent opens the checkpoints as the next run
 * would (finishing a rewind in flight) and checks that a rewind the kill interrupted left the
 * workspace as it was before or as the rewind leaves it, never in between. Every child also checks
 * its own rewinds exact, and the next child must record and rewind on what the kill left.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GitCheckpoints } from '../../main/checkpoints/gitCheckpoints.js';
import { treeDigest } from '../../test/treeDigest.js';
import { Rng } from '../prng.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../..');
const CHILD = path.join(HERE, 'checkpointChild.ts');

export interface CheckpointLoopFigures {
  iterations: number;
  /** Kills that landed inside a rewind (after `rewind`, before `done`). */
  killsInRewind: number;
  /** Kills that landed inside a record (after `snap`, before `snapped`): the next child must record and rewind exactly on what it left. */
  killsInSnapshot: number;
  /** Of those, how the workspace was found: as before, as after, neither. */
  before: number;
  after: number;
  torn: number;
  /** Children that exited by themselves (a snapshot failed, a rewind was not exact, a crash on open). */
  childFailures: number;
  problems: string[];
  elapsedMs: number;
}

export async function runCheckpointKillLoop(o: { iterations: number; seed: number; dir?: string; log?: (line: string) => void }): Promise<CheckpointLoopFigures> {
  const top = o.dir ?? fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-crash-cp-')));
  const root = path.join(top, 'workspace');
  const data = path.join(top, 'data', 'session-1');
  fs.mkdirSync(root, { recursive: true });
  fs.mkdirSync(path.dirname(data), { recursive: true });
  const rng = new Rng(o.seed);
  const f: CheckpointLoopFigures = { iterations: o.iterations, killsInRewind: 0, killsInSnapshot: 0, before: 0, after: 0, torn: 0, childFailures: 0, problems: [], elapsedMs: 0 };
  const started = performance.now();
  for (let i = 0; i < o.iterations; i++) {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, data, root, String(rng.int(1, 1e9))], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let last = '';
    let stderr = '';
    let readyAt = 0;
    // A third of the kills come at a random moment, a third just after a rewind begins, a third just after a record does.
    const aim = rng.int(0, 2);
    const killAfter = rng.int(30, 1500);
    const soon = rng.int(0, 25);
    let aimed = false;
    const kill = () => {
      if (!aimed) setTimeout(() => child.kill('SIGKILL'), soon);
      aimed = true;
    };
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      for (const line of chunk.split('\n')) {
        if (line === '') continue;
        last = line;
        if (readyAt === 0) readyAt = performance.now();
        if ((aim === 1 && line.startsWith('rewind ')) || (aim === 2 && line === 'snap' && performance.now() - readyAt > killAfter / 3)) kill();
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    // 'close': every line the child wrote (pipes are synchronous on Linux) has been read.
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // Unaimed, or no such line yet: killed after `killAfter` ms (aimed: at the latest after 6 s).
    let timer: NodeJS.Timeout | undefined;
    const ready = setInterval(() => {
      if (readyAt === 0) return;
      clearInterval(ready);
      timer = setTimeout(() => child.kill('SIGKILL'), aim === 0 ? killAfter : 6000);
    }, 5);
    const code = await exited;
    clearInterval(ready);
    clearTimeout(timer);
    if (code !== null) {
      f.childFailures++;
      f.problems.push(`iteration ${i + 1}: the child exited ${code} by itself: ${stderr.trim().split('\n').slice(-3).join(' / ')}`);
      continue;
    }
    // What the next run does first: open, and finish a rewind in flight.
    const cp = new GitCheckpoints({ dir: data, root, fresh: false });
    cp.recover(() => {});
    if (last === 'snap') f.killsInSnapshot++;
    if (last.startsWith('rewind ')) {
      f.killsInRewind++;
      const [, before, after] = last.split(' ');
      const now = treeDigest(root);
      if (now === after) f.after++;
      else if (now === before) f.before++;
      else {
        f.torn++;
        f.problems.push(`iteration ${i + 1}: a kill inside a rewind left the workspace neither before nor after`);
      }
    }
    if ((i + 1) % 10 === 0) o.log?.(`  … ${i + 1} of ${o.iterations}`);
  }
  f.elapsedMs = performance.now() - started;
  if (!o.dir) fs.rmSync(top, { recursive: true, force: true });
  return f;
}
