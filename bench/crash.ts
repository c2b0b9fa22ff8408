/**
 * Crash safety benchmark: the kill loop (bench/crash/killLoop.ts). A child runs a scripted session
 * on a real SQLite store and workspace and is killed with SIGKILL at seeded random moments, again
 * and again on the same database; after each kill the database and files are checked.
 *
 *   npm run bench:crash
 *   KEEL_KILL_ITERATIONS=<n>   iterations (default 200)
 *   KEEL_KILL_SEED=<int>       another schedule of kills
 *   KEEL_KILL_MIN_MS, KEEL_KILL_MAX_MS   when a kill lands after the child is ready (default 5..250)
 *   KEEL_KILL_KEEP=1           keep the folder with the database and workspace, and print it
 *
 * Exits 1 when an acknowledged result was lost, a file was torn, the database failed its integrity
 * check, turns and results did not fit together, or a child died by itself.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runKillLoop } from './crash/killLoop.js';

const iterations = Number(process.env.KEEL_KILL_ITERATIONS ?? 200);
const seed = Number(process.env.KEEL_KILL_SEED ?? 0x6b696c6c);
const minMs = Number(process.env.KEEL_KILL_MIN_MS ?? 5);
const maxMs = Number(process.env.KEEL_KILL_MAX_MS ?? 250);
const keep = process.env.KEEL_KILL_KEEP === '1';
if (!Number.isInteger(iterations) || iterations < 1 || !(minMs >= 0 && maxMs >= minMs)) {
  console.error('KEEL_KILL_ITERATIONS must be a positive integer and 0 <= KEEL_KILL_MIN_MS <= KEEL_KILL_MAX_MS.');
  process.exit(2);
}
const dir = keep ? fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-crash-'))) : undefined;

console.log(`kill loop: ${iterations} iterations, seed ${seed}, kills ${minMs}..${maxMs} ms after ready (1 in 10 while opening)`);
const f = await runKillLoop({ iterations, seed, minMs, maxMs, dir, keep, log: (line) => console.log(line) });
const rows: [string, number | string][] = [
  ['iterations', f.iterations],
  ['results acknowledged', f.acknowledged],
  ['results lost', f.lost],
  ['integrity failures', f.integrityFailures],
  ['torn files', f.tornFiles],
  ['turn/result inconsistencies', f.inconsistencies],
  ['children that died by themselves', f.childFailures],
  ['kills while a write was in flight', f.killsMidWrite],
  ['kills while opening', f.killsWhileOpening],
  ['stray temporary files left by atomicWrite', f.strayTempFiles],
  ['sessions / results stored', `${f.sessions} / ${f.results}`],
  ['database + WAL size', `${(f.dbBytes / 1024 / 1024).toFixed(1)} MiB`],
  ['elapsed', `${(f.elapsedMs / 1000).toFixed(1)} s (${(f.elapsedMs / f.iterations).toFixed(0)} ms per iteration)`],
];
const width = Math.max(...rows.map(([k]) => k.length));
for (const [k, v] of rows) console.log(`  ${k.padEnd(width)}  ${v}`);
if (dir) console.log(`kept: ${dir}`);
for (const p of f.problems) console.log(`  problem: ${p}`);
const failed = f.lost > 0 || f.tornFiles > 0 || f.integrityFailures > 0 || f.inconsistencies > 0 || f.childFailures > 0;
console.log(failed ? 'FAILED' : 'ok: nothing acknowledged was lost, nothing torn, every reopen clean');
process.exit(failed ? 1 : 0);
