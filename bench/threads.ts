/**
 * Benchmark of `threads: auto` (issue 22, item 7): generation speed, in tokens/s, on the generated
 * ~26M F16 model (test-models/big.gguf, written there when missing), CPU backend, for
 *
 * - auto: Keel's choice (main/llm/fit.ts autoThreads: the cores that do math), through loadModel as
 *   the app loads a model;
 * - cores: the cores count given as a number (`--threads N`);
 * - node-llama-cpp: node-llama-cpp's own default, which Keel's auto used to be (at least 4 threads
 *   on the CPU backend, whatever the cores);
 *
 * each idle and under load: one busy loop per core, child processes this bench starts and stops
 * itself. Each figure is the median of KEEL_THREADS_RUNS runs of KEEL_THREADS_TOKENS tokens
 * (greedy) after a short prompt, on a fresh sequence; the runs take turns between the settings.
 *
 *   npm run bench:threads
 *   KEEL_THREADS_TOKENS=24   tokens generated per run
 *   KEEL_THREADS_RUNS=3      runs per figure
 *
 * Figures are printed, never asserted; it exits 1 when a phase fails, or when auto runs more
 * threads than the cores that do math. The last line is `auto/cores loaded: X.XX` (tokens/s ratio).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LlamaContext, LlamaModel } from 'node-llama-cpp';
import { autoThreads } from '../main/llm/threads.js';
import { loadLlama, loadModel } from '../main/llm/model.js';
import { BIG_MODEL_OPTIONS, writeTestModel } from '../main/llm/testModel/makeTestModel.js';
import { checkProblems } from './checks.js';
import { median } from './measure.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MODEL = path.join(REPO, 'test-models', 'big.gguf');
const TOKENS = Number(process.env.KEEL_THREADS_TOKENS ?? 24);
const RUNS = Number(process.env.KEEL_THREADS_RUNS ?? 3);
const PROMPT = 'Read the file src/app.ts and tell me which functions it exports, then explain how the paging works.';

/** One busy loop per core, each a child process; `stop` kills them by their pids. */
function startLoad(count: number): { stop(): void } {
  const children: ChildProcess[] = Array.from({ length: count }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  return {
    stop() {
      for (const child of children) child.kill('SIGKILL');
    },
  };
}

/** Tokens per second for TOKENS greedy tokens after PROMPT, on a fresh sequence of `context`. */
async function tokensPerSecond(model: LlamaModel, context: LlamaContext): Promise<number> {
  const sequence = context.getSequence();
  try {
    const prompt = model.tokenize(PROMPT);
    // The prompt's prefill is not timed: the first token comes out of it.
    let made = 0;
    let started = 0;
    for await (const token of sequence.evaluate(prompt, { temperature: 0 })) {
      void token;
      if (made === 0) started = performance.now();
      if (++made > TOKENS) break;
    }
    return (TOKENS * 1000) / (performance.now() - started);
  } finally {
    sequence.dispose();
  }
}

/** Median tokens/s of each context; the runs go round the contexts, so a change in the machine's load falls on all of them. */
async function figures(model: LlamaModel, contexts: readonly LlamaContext[]): Promise<number[]> {
  const runs: number[][] = contexts.map(() => []);
  for (let i = 0; i < RUNS; i++) {
    for (const [at, context] of contexts.entries()) runs[at].push(await tokensPerSecond(model, context));
  }
  return runs.map(median);
}

async function main(): Promise<number> {
  if (!fs.existsSync(MODEL)) {
    fs.mkdirSync(path.dirname(MODEL), { recursive: true });
    writeTestModel(MODEL, BIG_MODEL_OPTIONS);
  }
  const llama = await loadLlama('cpu');
  const cores = Math.min(llama.cpuMathCores, os.availableParallelism());
  const loaded = await loadModel({ modelPath: MODEL, settings: { backend: 'cpu', contextSize: 1024 } });
  const problems: string[] = [];
  try {
    const contexts: [string, LlamaContext][] = [
      ['auto', loaded.context],
      ['cores', await loaded.model.createContext({ contextSize: 1024, sequences: 1, threads: cores })],
      ['node-llama-cpp', await loaded.model.createContext({ contextSize: 1024, sequences: 1 })],
    ];
    console.log(`bench:threads on ${MODEL} (${(fs.statSync(MODEL).size / 1e6).toFixed(1)} MB), CPU backend`);
    console.log(`cores useful for math ${llama.cpuMathCores} · os.availableParallelism ${os.availableParallelism()} · auto: ${autoThreads(llama).value} (${autoThreads(llama).why})`);
    console.log(`${TOKENS} tokens per run, median of ${RUNS} runs; load = ${cores} busy loop(s)`);
    const result: Record<string, { threads: number; idle: number; loaded: number }> = {};
    for (const [name, context] of contexts) result[name] = { threads: context.idealThreads, idle: 0, loaded: 0 };
    const idle = await figures(loaded.model, contexts.map(([, c]) => c));
    for (const [at, [name]] of contexts.entries()) result[name].idle = idle[at];
    const load = startLoad(cores);
    try {
      // The loops' processes start before the first timed run.
      await new Promise((r) => setTimeout(r, 1500));
      const busy = await figures(loaded.model, contexts.map(([, c]) => c));
      for (const [at, [name]] of contexts.entries()) result[name].loaded = busy[at];
    } finally {
      load.stop();
    }
    console.log('\nsetting          threads   idle tok/s   loaded tok/s');
    for (const [name, r] of Object.entries(result)) {
      console.log(`${name.padEnd(16)} ${String(r.threads).padStart(7)}   ${r.idle.toFixed(1).padStart(10)}   ${r.loaded.toFixed(1).padStart(12)}`);
    }
    if (result.auto.threads > cores) problems.push(`auto runs ${result.auto.threads} threads on ${cores} cores that do math`);
    for (const [, context] of contexts.slice(1)) await context.dispose();
    console.log(`\nauto/node-llama-cpp loaded: ${(result.auto.loaded / result['node-llama-cpp'].loaded).toFixed(2)}`);
    console.log(`auto/cores loaded: ${(result.auto.loaded / result.cores.loaded).toFixed(2)}`);
  } catch (err) {
    problems.push(`a phase failed: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    await loaded.dispose();
  }
  return checkProblems('bench:threads', problems);
}

process.exitCode = await main();
