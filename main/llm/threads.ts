/**
 * How many threads evaluate, and in batches of how many tokens: the `threads` setting, else what
 * was measured on this machine for this model (speed.ts), else the rule (autoThreads). Decoding
 * (one token a step per session) and prefill (hundreds a step) may want different counts: decoding
 * is bound by reading the weights, which few threads saturate, prefill by arithmetic. Where measured
 * to differ, the context gets both (batchThreads.ts).
 */
import os from 'node:os';
import type { Llama } from 'node-llama-cpp';
import { readSpeed, speedKey, type SpeedFigures } from './speed.js';
import type { Choice, LocalSettings } from './localSettings.js';

/** node-llama-cpp's batch size for a context of 512 tokens or more. */
export const DEFAULT_BATCH = 512;
/**
 * How much faster a larger batch's prefill must measure to be used, in its slowest round against
 * the default's best: its compute buffer takes memory from the context, and on a busy machine one
 * round can run 20 % faster than the next (measured here at a load average of 6 on 2 cores).
 */
const LARGER_BATCH_GAIN = 1.1;

export interface ThreadPlan {
  /** Threads for decoding, and for prefill unless `batchThreads` says otherwise. */
  threads: Choice<number>;
  /** Threads for prefill batches, where measured to want another count than decoding. */
  batchThreads?: Choice<number>;
  /** Tokens a batch (llama.cpp's n_batch and n_ubatch), where measured; node-llama-cpp's default otherwise. */
  batchSize?: Choice<number>;
}

/**
 * The rule without a measurement: the cores that do math, never more. node-llama-cpp's own default
 * on the CPU backend is at least 4 (its thread splitter's floor), which on a 2-core machine runs 4
 * threads on 2 cores and is several times slower under load (bench:threads); llama.cpp's math cores
 * are the physical ones, and os.availableParallelism() is what this process may use (a container's
 * or affinity limit), so the smaller of the two.
 */
export function autoThreads(llama: Pick<Llama, 'cpuMathCores'>): { value: number; why: string } {
  const math = Math.max(1, llama.cpuMathCores);
  const usable = os.availableParallelism();
  const value = Math.min(math, usable);
  return {
    value,
    why: usable < math
      ? `The ${count(usable)} cores this process may use (of ${count(math)} cores useful for math).`
      : `One per core useful for math (${count(math)}).`,
  };
}

/**
 * What a load of `file` uses: the setting, else the figures measured under this machine's key in
 * `speedFolder` (none given: not read), else the rule. `flashAttention` is the context's option.
 */
export async function planThreads(llama: Llama, file: string, flashAttention: 'auto' | boolean, settings: LocalSettings, speedFolder?: string): Promise<ThreadPlan> {
  const figures = speedFolder === undefined ? undefined : readSpeed(speedFolder, await speedKey(llama, file, flashAttention));
  const batchSize = figures && batchChoice(figures);
  if (settings.threads !== 'auto') return { threads: { value: settings.threads, why: `Set to ${count(settings.threads)}.` }, ...(batchSize && { batchSize }) };
  if (!figures) {
    const rule = autoThreads(llama);
    return { threads: { value: rule.value, why: `${rule.why} Not measured for this model here: keel doctor MODEL --measure.` } };
  }
  const decode = best(figures.threads, (t) => -t.decodeMs);
  const prefill = best(figures.threads, (t) => t.prefillPerSecond);
  const when = measured(figures);
  const decodeWhy = `decoding ${ms(decode.decodeMs)} a token${against(figures.threads, decode, (t) => ms(t.decodeMs))}`;
  const prefillWhy = `prefill ${rate(prefill.prefillPerSecond)}${against(figures.threads, prefill, (t) => rate(t.prefillPerSecond))}`;
  if (prefill.threads === decode.threads) return { threads: { value: decode.threads, why: `Measured: ${decodeWhy}; ${prefillWhy} (${when}).` }, batchSize };
  return {
    threads: { value: decode.threads, why: `Measured for decoding: ${decodeWhy} (${when}).` },
    batchThreads: { value: prefill.threads, why: `Measured for prefill: ${prefillWhy} (${when}).` },
    batchSize,
  };
}

/** A larger batch only where its prefill measured LARGER_BATCH_GAIN faster than the default's in every round. */
function batchChoice(f: SpeedFigures): Choice<number> {
  const base = f.batches.find((b) => b.batchSize === DEFAULT_BATCH);
  if (!base) return { value: DEFAULT_BATCH, why: `node-llama-cpp's default; ${f.batchNote ?? 'other sizes not measured'}.` };
  const top = best(f.batches, (b) => b.slowestPerSecond);
  const others = f.batches.filter((b) => b !== base).map((b) => `${rate(b.prefillPerSecond)} at ${count(b.batchSize)}`).join(', ');
  if (top !== base && top.slowestPerSecond >= base.prefillPerSecond * LARGER_BATCH_GAIN) {
    return {
      value: top.batchSize,
      why: `Measured: prefill ${rate(top.slowestPerSecond)} or more against ${rate(base.prefillPerSecond)} at most at ${DEFAULT_BATCH}, node-llama-cpp's default (${measured(f)}).`,
    };
  }
  return {
    value: DEFAULT_BATCH,
    why: `node-llama-cpp's default: prefill ${rate(base.prefillPerSecond)}${others ? ` against ${others}` : ''}; a larger batch takes memory, so it must be ${Math.round((LARGER_BATCH_GAIN - 1) * 100)} % faster in every round (${measured(f)}).`,
  };
}

function best<T>(items: T[], score: (item: T) => number): T {
  return items.reduce((a, b) => (score(b) > score(a) ? b : a));
}

const against = <T extends { threads: number }>(all: T[], chosen: T, shown: (t: T) => string) => {
  const rest = all.filter((t) => t !== chosen);
  return `${all.length === 1 ? '' : ` with ${count(chosen.threads)},`}${rest.length ? ` against ${rest.map((t) => `${shown(t)} with ${count(t.threads)}`).join(', ')}` : ''}`;
};
const measured = (f: SpeedFigures) => `measured ${f.measuredAt.slice(0, 10)}, load average ${f.loadAverage.toFixed(2)}`;
const count = (value: number) => value.toLocaleString('en-US');
const ms = (value: number) => `${value.toFixed(1)} ms`;
const rate = (value: number) => `${Math.round(value).toLocaleString('en-US')} tokens/s`;
