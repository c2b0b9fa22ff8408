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
 * Then the second loop, on saved KV states (bench/crash/stateLoop.ts): a child on a generated model
 * sends messages and saves its state over and over and is killed, most often inside a save.
 *   KEEL_KILL_STATE_ITERATIONS=<n>   its iterations (default 25; 0 skips it)
 *   KEEL_KILL_STATE_SEED=<int>       another schedule of its kills
 *
 * Then the third loop, on checkpoints (bench/crash/checkpointLoop.ts): a child records turns of file
 * changes and rewinds with files, killed anywhere (inside a snapshot, inside a rewind); a rewind a
 * kill interrupted must leave the workspace as before or as after, never in between.
 *   KEEL_KILL_CHECKPOINT_ITERATIONS=<n>   its iterations (default 30; 0 skips it)
 *
 * Exits 1 when an acknowledged result was lost, a file was torn, the database failed its integrity
 * check, turns and results did not fit together, or a child died by itself; or when a saved state
 * was lost, torn or left stray files piling up, a restore threw, blocked or restored other tokens,
 * or a session did not answer after it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { median } from './measure.js';
import { runKillLoop } from './crash/killLoop.js';
import { runStateKillLoop } from './crash/stateLoop.js';
import { runCheckpointKillLoop } from './crash/checkpointLoop.js';
import { checkProblems } from './checks.js';

const iterations = Number(process.env.KEEL_KILL_ITERATIONS ?? 200);
const seed = Number(process.env.KEEL_KILL_SEED ?? 0x6b696c6c);
const minMs = Number(process.env.KEEL_KILL_MIN_MS ?? 5);
const maxMs = Number(process.env.KEEL_KILL_MAX_MS ?? 250);
const keep = process.env.KEEL_KILL_KEEP === '1';
const stateIterations = Number(process.env.KEEL_KILL_STATE_ITERATIONS ?? 25);
const stateSeed = Number(process.env.KEEL_KILL_STATE_SEED ?? 0x73746174);
const checkpointIterations = Number(process.env.KEEL_KILL_CHECKPOINT_ITERATIONS ?? 30);
if (!Number.isInteger(iterations) || iterations < 1 || !(minMs >= 0 && maxMs >= minMs)) {
  console.error('KEEL_KILL_ITERATIONS must be a positive integer and 0 <= KEEL_KILL_MIN_MS <= KEEL_KILL_MAX_MS.');
  process.exit(2);
}
if (!Number.isInteger(stateIterations) || stateIterations < 0) {
  console.error('KEEL_KILL_STATE_ITERATIONS must be a whole number (0 skips the state loop).');
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
const print = (table: [string, number | string][]): void => {
  const width = Math.max(...table.map(([k]) => k.length));
  for (const [k, v] of table) console.log(`  ${k.padEnd(width)}  ${v}`);
};
print(rows);
if (dir) console.log(`kept: ${dir}`);
for (const p of f.problems) console.log(`  problem: ${p}`);
/** The checks that failed, named: `[count, what]` pairs whose count is above 0. */
const failures = (loop: string, counts: [number, string][]) => counts.filter(([n]) => n > 0).map(([n, what]) => `${loop}: ${n} ${what}`);
const problems = failures('kill loop', [
  [f.lost, 'acknowledged results lost'], [f.tornFiles, 'torn files'], [f.integrityFailures, 'integrity check failures'],
  [f.inconsistencies, 'turn/result inconsistencies'], [f.childFailures, 'children that died by themselves'],
]);
console.log(problems.length > 0 ? 'FAILED' : 'ok: nothing acknowledged was lost, nothing torn, every reopen clean');

if (stateIterations > 0) {
  const stateDir = keep ? fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-crash-state-'))) : undefined;
  console.log(`state kill loop: ${stateIterations} iterations, seed ${stateSeed}, 3 in 4 kills aimed inside a save`);
  const s = await runStateKillLoop({ iterations: stateIterations, seed: stateSeed, dir: stateDir, keep, log: (line) => console.log(line) });
  const ms = (values: number[]) => (values.length === 0 ? '–' : `${median(values).toFixed(0)} ms median, ${Math.max(...values).toFixed(0)} ms max`);
  print([
    ['iterations (then one check, not killed)', s.iterations],
    ['saves acknowledged', s.savesAcknowledged],
    ['kills during a save / elsewhere', `${s.killsDuringSave} / ${s.killsElsewhere}`],
    ['restores: restored / discarded with a reason / none saved yet', `${s.restored} / ${s.discarded} / ${s.noState}`],
    ['restores that threw, blocked or went wrong', s.restoreFailures],
    ['states lost, torn or unexpected', s.stateProblems],
    ['sessions that did not answer after a restore', s.unanswered],
    ['stray files beyond one save\'s leftovers', `${s.strayPileUps} (most beside one state: ${s.maxStray})`],
    ['children that died by themselves', s.childFailures],
    ['least share of restored tokens reused', s.restored > 0 ? s.minReuse.toFixed(3) : '–'],
    ['save time', ms(s.saveMs)],
    ['restore time', ms(s.restoreMs)],
    ['largest state', `${(s.maxStateBytes / 1024 / 1024).toFixed(1)} MiB`],
    ['elapsed', `${(s.elapsedMs / 1000).toFixed(1)} s (${(s.elapsedMs / (s.iterations + 1)).toFixed(0)} ms per child)`],
  ]);
  for (const [why, n] of s.reasons) console.log(`  discarded ${n}×: ${why}`);
  if (stateDir) console.log(`kept: ${stateDir}`);
  for (const p of s.problems) console.log(`  problem: ${p}`);
  const stateProblems = failures('state kill loop', [
    [s.restoreFailures, 'restores that threw, blocked or went wrong'], [s.stateProblems, 'states lost, torn or unexpected'],
    [s.unanswered, 'sessions that did not answer after a restore'], [s.strayPileUps, 'stray file pile-ups'], [s.childFailures, 'children that died by themselves'],
  ]);
  problems.push(...stateProblems);
  console.log(stateProblems.length > 0 ? 'FAILED' : 'ok: every kill left the previous state or the new one, every restore returned, every session answered');
}
if (checkpointIterations > 0) {
  console.log(`checkpoint kill loop: ${checkpointIterations} iterations, seed ${seed}, kills 30..1500 ms after ready, or aimed just after a rewind or a record begins`);
  const c = await runCheckpointKillLoop({ iterations: checkpointIterations, seed, log: (line) => console.log(line) });
  print([
    ['iterations', c.iterations],
    ['kills inside a record (a snapshot)', c.killsInSnapshot],
    ['kills inside a rewind', c.killsInRewind],
    ['… the workspace found as before / as after / neither', `${c.before} / ${c.after} / ${c.torn}`],
    ['children that failed by themselves (a snapshot failed, a rewind not exact)', c.childFailures],
    ['elapsed', `${(c.elapsedMs / 1000).toFixed(1)} s`],
  ]);
  for (const p of c.problems) console.log(`  problem: ${p}`);
  const checkpointProblems = failures('checkpoint kill loop', [
    [c.torn, 'rewinds that left the workspace neither before nor after'], [c.childFailures, 'children that failed by themselves'],
  ]);
  problems.push(...checkpointProblems);
  console.log(checkpointProblems.length > 0 ? 'FAILED' : 'ok: every kill left the workspace before or after a rewind, every rewind exact');
}
process.exit(checkProblems('bench:crash', problems));
