/**
 * What the command sandbox costs: the same short commands through the real bash tool without a
 * sandbox, and in bubblewrap at each access level (the wrap, the process and its mount points).
 *
 *   npm run bench:sandbox
 *   KEEL_BENCH_RUNS=<n>   commands per row (default 20)
 *
 * Then what the git check after a writing command costs (two walks of a workspace: before and
 * after), on a workspace of 200 files and on this repository; and with eight busy loops beside
 * it, five fresh `keel exec` processes started at once must all find the sandbox (issue 22: the
 * library's `which` under a 1 s timeout once made a busy machine look like one without bubblewrap).
 *
 * Figures are printed, never asserted; it exits 1 when the sandbox cannot run here, or when a
 * fresh process beside the busy loops did not find it (naming it).
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bashTool } from '../main/core/tools/bash.js';
import type { CommandAccess, CommandRunner } from '../main/core/tools/commandRunner.js';
import { makeContext } from '../test/toolContext.js';
import { snapshotGit } from '../main/sandbox/gitGuard.js';
import { createSandboxRunner, sandboxStatus, stopSandbox } from '../main/sandbox/runner.js';
import { checkProblems } from './checks.js';
import { median, quantile } from './measure.js';

const runs = Number(process.env.KEEL_BENCH_RUNS ?? 20);
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-bench-sandbox-')));
execFileSync('git', ['init', '-q'], { cwd: root });
for (let i = 0; i < 200; i++) fs.writeFileSync(path.join(root, `f${i}.txt`), `${i}\n`);

const status = await sandboxStatus();
if (status.kind !== 'sandboxed') {
  console.error(`No sandbox here: ${status.reason}`);
  process.exit(1);
}
const runner = createSandboxRunner({ dataFolder: path.join(root, '.keel-data') });

async function row(label: string, commands: CommandRunner | undefined, access: CommandAccess): Promise<void> {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await bashTool.run({ command: 'ls | wc -l' }, { ...makeContext(root), commands, access });
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  ms.sort((a, b) => a - b);
  console.log(`${label.padEnd(28)} median ${median(ms).toFixed(0).padStart(5)} ms   p90 ${quantile(ms, 0.9).toFixed(0).padStart(5)} ms`);
}

console.log(`\`ls | wc -l\` in a workspace of 200 files, ${runs} runs each, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}`);
await row('no sandbox', undefined, 'read-only');
for (const access of ['read-only', 'workspace-write', 'git-write'] as const) await row(`bubblewrap, ${access}`, runner, access);
await stopSandbox();

const repo = path.resolve(import.meta.dirname, '..');
// A workspace the size of one with an installed node_modules: 20,200 folders, 40,000 files.
const big = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-bench-walk-'));
for (let i = 0; i < 200; i++) {
  for (let j = 0; j < 100; j++) {
    const d = path.join(big, `p${i}`, `d${j}`);
    fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(d, 'a.js'), 'a');
    fs.writeFileSync(path.join(d, 'b.js'), 'b');
  }
}
for (const [label, folder] of [['git check, 200 files', root], ['git check, this repository', repo], ['git check, 60,200 entries', big]] as const) {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    snapshotGit(folder);
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  console.log(`${label.padEnd(28)} median ${median(ms).toFixed(1).padStart(5)} ms per walk (two per writing command)`);
}
fs.rmSync(big, { recursive: true, force: true });

/** Five fresh `keel exec` processes at once beside eight busy loops: each must find bubblewrap. */
async function busyMachine(): Promise<string[]> {
  const loops = Array.from({ length: 8 }, () => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-bench-home-'));
  const keel = path.join(repo, 'bin', 'keel.mjs');
  try {
    await new Promise((r) => setTimeout(r, 500));
    const runs5 = Array.from({ length: 5 }, (_, i) => new Promise<string | undefined>((resolve) => {
      const child = spawn(process.execPath, [keel, 'exec', '--workspace', root, '--mode', 'auto', '--approve', 'never', '--', 'cat f7.txt'], {
        env: { ...process.env, KEEL_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'],
      });
      let text = '';
      child.stdout.on('data', (d: Buffer) => (text += d));
      child.stderr.on('data', (d: Buffer) => (text += d));
      child.on('close', (code) => resolve(code === 0 && /^7$/m.test(text) && !text.includes('No sandbox') ? undefined : `process ${i + 1}: exit ${code}: ${text.trim().slice(0, 300)}`));
    }));
    return (await Promise.all(runs5)).filter((p): p is string => p !== undefined);
  } finally {
    for (const l of loops) l.kill('SIGKILL');
    fs.rmSync(home, { recursive: true, force: true });
  }
}
const start = Date.now();
const problems = await busyMachine();
console.log(`busy machine (8 loops, ${os.cpus().length} cores): ${5 - problems.length} of 5 fresh keel exec found the sandbox, ${((Date.now() - start) / 1000).toFixed(1)} s`);
fs.rmSync(root, { recursive: true, force: true });
process.exit(checkProblems('bench:sandbox', problems.map((p) => `not sandboxed beside the busy loops: ${p}`)));
