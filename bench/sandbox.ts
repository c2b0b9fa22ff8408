/**
 * What the command sandbox costs: the same short commands through the real bash tool without a
 * sandbox, and in bubblewrap at each access level (the wrap, the process and its mount points).
 *
 *   npm run bench:sandbox
 *   KEEL_BENCH_RUNS=<n>   commands per row (default 20)
 *
 * Figures are printed, never asserted; it exits 1 only when the sandbox cannot run here.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bashTool } from '../main/core/tools/bash.js';
import type { CommandAccess, CommandRunner } from '../main/core/tools/commandRunner.js';
import { makeContext } from '../test/toolContext.js';
import { createSandboxRunner, sandboxStatus, stopSandbox } from '../main/sandbox/runner.js';
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
fs.rmSync(root, { recursive: true, force: true });
