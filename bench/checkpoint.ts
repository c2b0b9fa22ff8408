/**
 * Checkpoints benchmark: what recording every turn's changes costs on a big workspace, and whether
 * rewinds with files put it back exactly.
 *
 *   npm run bench:checkpoint
 *   KEEL_CHECKPOINT_FILES=<n>   files in the generated workspace (default 10000, ~100 MB, 1 in 10 in
 *                               an ignored node_modules)
 *   KEEL_CHECKPOINT_TURNS=<n>   turns of the scripted session (default 30)
 *
 * The workspace is a git repository of its own (its `.git` is checked untouched at the end). The
 * session's turns are the calls a session makes, with the checkpoint calls the session makes around
 * them: edits by the file tools (recorded by path), commands that may write (`sed -i`, `mv`, `rm`, a
 * generator of new files; walked before and after), and read-only commands (not recorded). The
 * checkpoint cost of a turn is the time of all its checkpoint calls. Then rewinds with files to
 * several turns, with turns in between; each is exact when the SHA-256 of the whole tree (every
 * tracked file's path, mode bit and bytes, links as links; apart from the checkpoints) equals the one
 * taken when that turn began.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GitCheckpoints } from '../main/checkpoints/gitCheckpoints.js';
import { snapshotTree } from '../test/outsideTree.js';
import { treeDigest, treeFiles } from '../test/treeDigest.js';
import { fmtInt, median, quantile } from './measure.js';
import { Rng } from './prng.js';
import { checkProblems } from './checks.js';

const FILES = Number(process.env.KEEL_CHECKPOINT_FILES ?? 10_000);
const TURNS = Number(process.env.KEEL_CHECKPOINT_TURNS ?? 30);
// What the rewinds do not put back: the workspace's own repository and what its .gitignore names.
const SKIP = ['.git', 'node_modules', 'build.log'];

const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-bench-cp-')));
const root = path.join(top, 'workspace');
const dir = path.join(top, 'data', 'checkpoints', 'session-1');
const rng = new Rng(0x63686b70);
const sh = (script: string) => execFileSync('sh', ['-c', script], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
const ms = (t0: number) => performance.now() - t0;

// The workspace: FILES files of ~10 KB in nested folders, a tenth of them in an ignored node_modules.
fs.mkdirSync(root, { recursive: true });
const sources: string[] = [];
for (let i = 0; i < FILES; i++) {
  const ignored = i % 10 === 9;
  const rel = ignored ? `node_modules/pkg${i % 37}/lib/m${i}.js` : `src/mod${i % 50}/part${i % 13}/file${i}.ts`;
  if (!ignored) sources.push(rel);
  fs.mkdirSync(path.join(root, path.dirname(rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), sourceText(i));
}
/** ~10 KB of source-like text that compresses as source does (words drawn at random). */
function sourceText(i: number): string {
  const words = ['const', 'value', 'return', 'export', 'function', 'items', 'index', 'result', 'await', 'config', 'path', 'string'];
  let text = '';
  for (let n = 0; text.length < 10_000; n++) {
    const line = Array.from({ length: rng.int(3, 9) }, () => `${rng.pick(words)}${rng.int(0, 999)}`).join(' ');
    text += `  ${line}; // ${'x'.repeat(40)} ${i}.${n}\n`;
  }
  return text;
}
fs.writeFileSync(path.join(root, '.gitignore'), 'node_modules/\n*.log\n');
sh('git init -q && git -c user.name=b -c user.email=b@b add -A && git -c gc.auto=0 -c user.name=b -c user.email=b@b commit -qm start');
const gitBefore = snapshotTree(path.join(root, '.git'));
const wsBytes = Number(execFileSync('du', ['-sb', root]).toString().split('\t')[0]);
console.log(`workspace: ${fmtInt(FILES)} files (${fmtInt(FILES / 10)} in an ignored node_modules), ${(wsBytes / 1e6).toFixed(0)} MB with its .git, at ${root}`);

let t0 = performance.now();
const cp = new GitCheckpoints({ dir, root, fresh: true });
console.log(`session start (the first snapshot, every tracked file copied): ${ms(t0).toFixed(0)} ms, ${(bytes() / 1e6).toFixed(1)} MB stored`);

const costs: number[] = [];
const digests = new Map<number, string>();
const trees = new Map<number, Map<string, string>>();
/** The source files as each turn began (a rewind brings its list back with its files). */
const sourcesAt = new Map<number, string[]>();
let seq = 0;
let generated = 0;
const timed = (f: () => unknown): number => {
  const t = performance.now();
  const failed = f();
  if (typeof failed === 'string') throw new Error(`a snapshot failed: ${failed}`);
  return ms(t);
};

/** One turn of the scripted session: a few edits and commands, chosen by the turn's number. */
function turn(): void {
  seq++;
  digests.set(seq, treeDigest(root, SKIP));
  if (process.env.KEEL_CHECKPOINT_DEBUG) trees.set(seq, treeFiles(root, SKIP));
  sourcesAt.set(seq, [...sources]);
  let cost = timed(() => cp.turnStarted(seq));
  const command = (script: string) => {
    cost += timed(() => cp.beforeCall(seq));
    sh(script);
    cost += timed(() => cp.afterCall(seq));
  };
  const pick = () => sources[rng.int(0, sources.length - 1)];
  // An edit (the file tools say what they wrote), and a read-only command (nothing recorded).
  const edited = pick();
  fs.appendFileSync(path.join(root, edited), `// turn ${seq}\n`);
  cost += timed(() => cp.afterCall(seq, [path.join(root, edited)]));
  sh(`grep -c value ${pick()} > /dev/null`);
  switch (seq % 5) {
    case 0: command(`sed -i 's/x\\{40\\}/y/' ${pick()} ${pick()} ${pick()}`); break;
    case 1: {
      const from = pick();
      const to = `${path.dirname(from)}/moved${seq}.ts`;
      command(`mv ${from} ${to}`);
      sources[sources.indexOf(from)] = to;
      break;
    }
    case 2: {
      const gone = pick();
      command(`rm ${gone}`);
      sources.splice(sources.indexOf(gone), 1);
      break;
    }
    case 3: {
      const out = `gen/turn${seq}`;
      command(`mkdir -p ${out} && for i in $(seq 1 20); do echo "generated $i of turn ${seq}" > ${out}/g$i.ts; done && echo build > build.log`);
      generated += 20;
      break;
    }
    default: command(`chmod +x ${pick()} && ln -sf ../README.md src/link${seq}.md && echo lib > node_modules/pkg1/new${seq}.js`);
  }
  costs.push(cost);
}

function bytes(): number {
  return Number(execFileSync('du', ['-sb', dir]).toString().split('\t')[0]);
}

for (let i = 0; i < TURNS; i++) turn();
console.log(`${TURNS} turns: ${generated} files generated, ${bytes() > 0 ? (bytes() / 1e6).toFixed(1) : 0} MB stored`);

// Rewinds: to a late turn, a few new turns, then further back, and to the first.
const targets = [Math.max(1, TURNS - 5), -3, Math.ceil(TURNS / 2), Math.ceil(TURNS / 6), 1];
const rewindMs: number[] = [];
let exact = 0;
let rewinds = 0;
for (const target of targets) {
  if (target < 0) {
    for (let i = 0; i < -target; i++) turn();
    continue;
  }
  const expected = digests.get(target)!;
  t0 = performance.now();
  const plan = cp.rewind(target, () => {});
  rewindMs.push(ms(t0));
  rewinds++;
  const ok = treeDigest(root, SKIP) === expected && plan.left.length === 0;
  if (ok) exact++;
  else if (process.env.KEEL_CHECKPOINT_DEBUG) {
    const was = trees.get(target)!;
    const now = treeFiles(root, SKIP);
    for (const p of new Set([...was.keys(), ...now.keys()])) if (was.get(p) !== now.get(p)) console.log(`  ${p}: was ${was.get(p)}, now ${now.get(p)}`);
  }
  console.log(`rewind to turn ${target}: ${plan.restored.length} files put back, ${plan.left.length} left, in ${rewindMs.at(-1)!.toFixed(0)} ms; ${ok ? 'exact' : 'NOT exact'}`);
  for (const s of [...digests.keys()]) if (s > target) digests.delete(s);
  sources.splice(0, sources.length, ...sourcesAt.get(target)!);
}

const gitAfter = snapshotTree(path.join(root, '.git'));
const gitSame = JSON.stringify(gitAfter) === JSON.stringify(gitBefore);
if (!gitSame) {
  for (const p of new Set([...Object.keys(gitBefore), ...Object.keys(gitAfter)])) {
    if (JSON.stringify(gitBefore[p]) !== JSON.stringify(gitAfter[p])) console.log(`  .git changed: ${p}: ${JSON.stringify(gitBefore[p])} → ${JSON.stringify(gitAfter[p])}`);
  }
}
console.log(`the workspace's own .git: ${gitSame ? 'untouched' : 'CHANGED'}`);
console.log(`checkpoint per turn (${costs.length} turns): median ${median(costs).toFixed(1)} ms, p95 ${quantile(costs, 0.95).toFixed(1)} ms, max ${Math.max(...costs).toFixed(1)} ms`);
console.log(`rewind time: median ${median(rewindMs).toFixed(0)} ms, max ${Math.max(...rewindMs).toFixed(0)} ms`);
console.log(`bytes stored: ${fmtInt(bytes())} (${(bytes() / wsBytes * 100).toFixed(0)}% of the workspace)`);
console.log(`machine: ${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
fs.rmSync(top, { recursive: true, force: true });
console.log(`checkpoint per turn: ${median(costs).toFixed(0)} ms median; rewinds exact: ${exact} of ${rewinds}`);
process.exit(checkProblems('bench:checkpoint', [
  ...(exact < rewinds ? [`${rewinds - exact} of ${rewinds} rewinds did not put the workspace back exactly`] : []),
  ...(gitSame ? [] : ["the workspace's own .git changed"]),
]));
