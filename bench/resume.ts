/**
 * Benchmark of resuming a session from its saved KV state (issue 14), on the generated ~26M F16
 * model (test-models/big-64k.gguf: `npm run make-test-model -- --big` declaring a 65,536-token trained context; written there when missing),
 * one thread. For each size, a new process grows an agent session to that many tokens over 40
 * turns through the app's AgentPool, and quits; then new processes reopen it:
 *
 * - resumed: its saved state restored, one message sent — that request's prefill time;
 * - cold: the same session and message with its state folder removed — a full read;
 * - their ratio (goal ≤ 0.05), and the time it takes to open the session with its state;
 * - bytes written for state per turn over the 40 turns: before (the old policy: a full save after
 *   every send, in a session of its own) and after (the pool's: saved once idle loop.json
 *   `idle_save_ms`, turns sent as quickly as the script allows, plus the save at quit);
 * - the time a send waits for a state write (goal 0): from the send being asked to its work
 *   starting — turns sent back to back, a send while the idle save is due, and one sent the
 *   moment the idle save begins (the pool finishes a write before the sequence changes).
 *
 *   npm run bench:resume
 *   KEEL_RESUME_SIZES=8192,32768  the sizes (tokens) sessions are grown to
 *   KEEL_RESUME_TURNS=40          turns per session
 *   KEEL_RESUME_BEFORE=1          also the old policy, on the first size (0: not)
 *   KEEL_RESUME_SEED=<int>        other messages
 *   KEEL_RESUME_KEEP=1            keep the folder with the data folders, and print it
 *   KEEL_RESUME_HYBRID=1          also the first size on a hybrid model (0: not): the same generated
 *                                 model with Gated DeltaNet layers (arch qwen35), whose state cannot be
 *                                 cut back, so the saved state must carry the checkpoint the next message starts from
 *
 * Figures are printed, never asserted; it exits 1 when a phase fails (a state not restored, say).
 * The line before last is `resume/cold (hybrid): X.XXX`; the last is `resume/cold: X.XXX`, the largest
 * ratio over the sizes on the plain model.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loopConfig } from '../main/core/config.js';
import { BIG_MODEL_OPTIONS, writeTestModel } from '../main/llm/testModel/makeTestModel.js';
import type { Args, GrowResult, ReopenResult, Save } from './resume/child.js';
import { fmtInt, median } from './measure.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..');
const CHILD = path.join(HERE, 'resume', 'child.ts');
const MODEL = path.join(REPO, 'test-models', 'big-64k.gguf');
/**
 * The big generated model, declaring a 65,536-token trained context: a session grown to 32k
 * tokens needs a 46k context before compaction, and the engine refuses a context above the
 * trained one (its weights are random, so the declared length changes nothing else).
 */
const MODEL_OPTIONS = { ...BIG_MODEL_OPTIONS, contextLength: 65536 };
const HYBRID_MODEL = path.join(REPO, 'test-models', 'big-qwen35-64k.gguf');
const HYBRID = process.env.KEEL_RESUME_HYBRID !== '0';

const SIZES = (process.env.KEEL_RESUME_SIZES ?? '8192,32768').split(',').map(Number).sort((a, b) => a - b);
const TURNS = Number(process.env.KEEL_RESUME_TURNS ?? 40);
const BEFORE = process.env.KEEL_RESUME_BEFORE !== '0';
const SEED = Number(process.env.KEEL_RESUME_SEED ?? 0x72657375);
const KEEP = process.env.KEEL_RESUME_KEEP === '1';
if (SIZES.some((n) => !Number.isInteger(n) || n < 5000) || !Number.isInteger(TURNS) || TURNS < 1) {
  console.error('KEEL_RESUME_SIZES must be token counts of at least 5000 (the system prompt and tools alone are ~4,100), KEEL_RESUME_TURNS a positive integer.');
  process.exit(2);
}

/** A context the grown session fits in without compaction (Keel compacts past loop.json's share), with room for the reopen's turns. */
const contextFor = (tokens: number) => Math.ceil((tokens / loopConfig.compactAt + 2048) / 1024) * 1024;

const started = performance.now();
const progress = (msg: string) => process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(5)} s] ${msg}\n`);

function runChild<T>(args: Args): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify(args)], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
    });
    child.on('close', (code) => {
      const last = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !last.startsWith('{')) reject(new Error(`the ${args.phase} phase failed (exit ${code}${last ? '' : ', no figures'})`));
      else resolve(JSON.parse(last) as T);
    });
  });
}

const secs = (ms: number) => (ms >= 100 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`);
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const table = (rows: [string, string][]) => {
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`);
};
const written = (saves: Save[], turns: number) =>
  `${saves.length} save${saves.length === 1 ? '' : 's'}, ${mb(sum(saves.map((s) => s.bytes)))} in all, ${mb(sum(saves.map((s) => s.bytes)) / turns)} per turn`;

interface SizeRun { size: number; context: number; grow: GrowResult; resumed: ReopenResult; cold: ReopenResult; before?: GrowResult; hybrid?: boolean }

async function main(): Promise<number> {
  if (!fs.existsSync(MODEL)) {
    progress(`writing ${path.relative(REPO, MODEL)} (npm run make-test-model -- --big, with a 65,536-token trained context)`);
    writeTestModel(MODEL, MODEL_OPTIONS);
  }
  if (HYBRID && !fs.existsSync(HYBRID_MODEL)) {
    progress(`writing ${path.relative(REPO, HYBRID_MODEL)} (the same, of architecture qwen35)`);
    writeTestModel(HYBRID_MODEL, { ...MODEL_OPTIONS, architecture: 'qwen35' });
  }
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-resume-')));
  const runs: SizeRun[] = [];
  try {
    const sizes = [...SIZES.map((size, i) => ({ size, model: MODEL, before: BEFORE && i === 0, hybrid: false })),
      ...(HYBRID ? [{ size: SIZES[0]!, model: HYBRID_MODEL, before: false, hybrid: true }] : [])];
    for (const { size, model, before: withBefore, hybrid } of sizes) {
      const context = contextFor(size);
      const label = `${fmtInt(size)} tokens${hybrid ? ' (hybrid)' : ''}`;
      const at = (name: string) => path.join(dir, `${size}${hybrid ? '-hybrid' : ''}-${name}`);
      progress(`${label}: growing a session over ${TURNS} turns (context ${fmtInt(context)})`);
      const grow = await runChild<GrowResult>({ phase: 'grow', data: at('after'), model, contextSize: context, target: size, turns: TURNS, seed: SEED });
      fs.cpSync(at('after'), at('resumed'), { recursive: true });
      fs.cpSync(at('after'), at('cold'), { recursive: true });
      progress(`${label}: reopening with the saved state`);
      const resumed = await runChild<ReopenResult>({ phase: 'reopen', data: at('resumed'), model, contextSize: context, session: grow.session, waits: true });
      if (resumed.restoredTokens === 0) throw new Error('the resumed session restored nothing');
      progress(`${label}: reopening cold (its state folder removed)`);
      const cold = await runChild<ReopenResult>({ phase: 'reopen', data: at('cold'), model, contextSize: context, session: grow.session, cold: true });
      let before: GrowResult | undefined;
      if (withBefore) {
        progress(`${label}: the same session under the old policy (a full save after every send)`);
        before = await runChild<GrowResult>({ phase: 'before', data: at('before'), model, contextSize: context, target: size, turns: TURNS, seed: SEED });
      }
      runs.push({ size, context, grow, resumed, cold, before, hybrid });
    }
  } finally {
    if (KEEP) process.stderr.write(`kept: ${dir}\n`);
    else fs.rmSync(dir, { recursive: true, force: true });
  }
  print(runs);
  return 0;
}

function print(runs: SizeRun[]): void {
  const lines = [
    'Keel resume benchmark (issue 14): a session reopened in a new process, with its saved KV state and cold',
    `Model: generated, embedding ${BIG_MODEL_OPTIONS.embedding}, ${BIG_MODEL_OPTIONS.layers} layers, F16 (${mb(fs.statSync(MODEL).size)}), 1 thread; ` +
      `an agent session with every tool; ${TURNS} turns; idle save after ${fmtInt(loopConfig.idleSaveMs)} ms (loop.json).`,
  ];
  const ratios: number[] = [];
  let hybrid: number | undefined;
  for (const r of runs) {
    const ratio = r.resumed.first.prefillMs / r.cold.first.prefillMs;
    if (r.hybrid) hybrid = ratio;
    else ratios.push(ratio);
    const w = r.resumed;
    lines.push('', `Grown to ${fmtInt(r.grow.tokens)} tokens (target ${fmtInt(r.size)}), context ${fmtInt(r.context)}${r.hybrid ? ', hybrid model (qwen35: Gated DeltaNet beside attention)' : ''}:`, ...table([
      ['cold prefill (state removed)', `${secs(r.cold.first.prefillMs)}  (${fmtInt(r.cold.first.newTokens)} of ${fmtInt(r.cold.first.promptTokens)} tokens read)`],
      ['resumed first-request prefill', `${secs(w.first.prefillMs)}  (${fmtInt(w.first.newTokens)} new of ${fmtInt(w.first.promptTokens)}; ${fmtInt(w.first.reusedTokens)} reused, ${fmtInt(w.restoredTokens)} restored)`],
      ['resumed / cold', `${ratio.toFixed(3)}  (goal ≤ 0.05)`],
      ['opening the session: resumed (state loaded) / cold', `${secs(w.openMs)} / ${secs(r.cold.openMs)}`],
      ['(restore + resumed prefill) / cold prefill', ((w.openMs - r.cold.openMs + w.first.prefillMs) / r.cold.first.prefillMs).toFixed(3)],
      [`state written over the ${TURNS} turns, after`, written(r.grow.saves, r.grow.turns)],
      ...(r.before ? [[`state written over the ${TURNS} turns, before`, written(r.before.saves, r.before.turns)] as [string, string]] : []),
      ['send waits for a state write, after: turns back to back', `${secs(Math.max(...r.grow.waits))} max (a save due before each of ${r.grow.waits.length - 1})`],
      ['  a send while the idle save is due (not begun)', secs(w.dueWaitMs ?? NaN)],
      ['  a send the moment the idle save begins', `${secs(w.writingWaitMs ?? NaN)}  (that save: ${w.writingSave ? `${mb(w.writingSave.bytes)}, engine held ${secs(w.writingSave.copyMs)}, on disk after ${secs(w.writingSave.ms)}` : '–'})`],
      ...(r.before ? [['send waits for a state write, before: each send', `${secs(median(r.before.saves.map((s) => s.ms)))} median, ${secs(Math.max(...r.before.saves.map((s) => s.ms)))} max (its save)`] as [string, string]] : []),
      ['bytes per cached token in a state', (r.grow.saves.at(-1)!.bytes / r.grow.saves.at(-1)!.tokens).toFixed(0)],
    ]));
  }
  lines.push('', `Total run time ${secs(performance.now() - started)}.`);
  if (hybrid !== undefined) lines.push(`resume/cold (hybrid): ${hybrid.toFixed(3)}`);
  lines.push(`resume/cold: ${Math.max(...ratios).toFixed(3)}`);
  process.stdout.write(lines.join('\n') + '\n');
}

main().then((code) => process.exit(code), (err: unknown) => {
  console.error(`bench:resume failed: ${(err as Error).message}`);
  process.exit(1);
});
