/**
 * The measurement behind `threads: auto` (threads.ts), kept by speed.ts: the model loaded as a load
 * would place it, then on small contexts of its own, at each candidate thread count, PREFILL tokens
 * of prefill (tokens a second) and DECODE greedy tokens one step each (ms a token), the candidates
 * taking turns for ROUNDS rounds and each keeping its best (other work on the machine only ever
 * slows a run down). Then prefill at a few batch sizes at the best prefill count, where that fits
 * in BATCH_BUDGET_S here. Minutes at most on a large model on a small CPU; seconds on a small one.
 */
import os from 'node:os';
import type { LlamaContext, LlamaModel, Token } from 'node-llama-cpp';
import { contextOptions, FitError, gpuLayersOption, impossible, modelInsights } from './fit.js';
import type { LocalSettings } from './localSettings.js';
import { loadLlama } from './model.js';
import { speedKey, writeSpeed, type SpeedFigures } from './speed.js';
import { autoThreads, DEFAULT_BATCH } from './threads.js';

const PREFILL = 512;
const DECODE = 16;
const ROUNDS = 2;
/** Batch sizes tried besides the default; each prefills BATCH_PREFILL tokens. */
const BATCHES = [DEFAULT_BATCH, 1024, 2048];
const BATCH_PREFILL = 2048;
/** The batch sizes are measured only where their prefill would take about this long at most. */
const BATCH_BUDGET_S = 30;

/** 1, 2, 4… below the usable cores, and the usable cores. */
export function threadCandidates(usable: number): number[] {
  const out: number[] = [];
  for (let t = 1; t < usable; t *= 2) out.push(t);
  return [...out, usable];
}

/** Measures `file` here with these settings and keeps the figures in `folder`; `step` hears each figure as it comes. */
export async function measureSpeed(file: string, settings: LocalSettings, folder: string, step: (text: string) => void = () => undefined): Promise<{ figures: SpeedFigures; path: string }> {
  const llama = await loadLlama(settings.backend);
  const insights = await modelInsights(llama, file);
  const refused = impossible(llama, insights, settings);
  if (refused) throw new FitError(refused);
  const options = contextOptions(insights, settings);
  const key = await speedKey(llama, file, options.flashAttention);
  const startLoad = os.loadavg()[0];
  const measuredAt = new Date().toISOString();
  const model = await llama.loadModel({ modelPath: file, gpuLayers: gpuLayersOption(settings) });
  try {
    const train = insights.trainContextSize ?? PREFILL + DECODE + 1;
    const prefill = Math.min(PREFILL, train - DECODE - 1);
    const tokens = sampleTokens(model, Math.min(BATCH_PREFILL, train - 1));
    const context = (threads: number, batchSize: number, size: number) => model.createContext({
      contextSize: size, sequences: 1, threads, batchSize, flashAttention: options.flashAttention, swaFullCache: options.swaFullCache,
      experimentalKvCacheKeyType: options.kvCacheKeyType, experimentalKvCacheValueType: options.kvCacheValueType,
    });
    const figures: SpeedFigures['threads'] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const threads of threadCandidates(autoThreads(llama).value)) {
        const c = await context(threads, DEFAULT_BATCH, prefill + DECODE + 1);
        try {
          const { prefillPerSecond, decodeMs } = await timeRun(c, tokens.slice(0, prefill), DECODE, tokens[prefill]);
          const kept = figures.find((f) => f.threads === threads);
          if (!kept) figures.push({ threads, decodeMs, prefillPerSecond });
          else Object.assign(kept, { decodeMs: Math.min(kept.decodeMs, decodeMs), prefillPerSecond: Math.max(kept.prefillPerSecond, prefillPerSecond) });
          step(`round ${round + 1} of ${ROUNDS}, ${threads} thread${threads === 1 ? '' : 's'}: decoding ${decodeMs.toFixed(1)} ms a token, prefill ${whole(prefillPerSecond)} tokens/s`);
        } finally {
          await c.dispose();
        }
      }
    }
    const { batches, batchNote } = await measureBatches(figures, tokens, context, step);
    const result: SpeedFigures = { key, measuredAt, loadAverage: Math.max(startLoad, os.loadavg()[0]), threads: figures, batches, ...(batchNote && { batchNote }) };
    return { figures: result, path: writeSpeed(folder, result) };
  } finally {
    await model.dispose();
  }
}

async function measureBatches(
  figures: SpeedFigures['threads'], tokens: Token[], context: (threads: number, batchSize: number, size: number) => Promise<LlamaContext>, step: (text: string) => void,
): Promise<{ batches: SpeedFigures['batches']; batchNote?: string }> {
  const top = figures.reduce((a, b) => (b.prefillPerSecond > a.prefillPerSecond ? b : a));
  if (tokens.length < BATCH_PREFILL) return { batches: [], batchNote: `the model's trained context is under ${BATCH_PREFILL} tokens` };
  const seconds = (BATCHES.length * ROUNDS * BATCH_PREFILL) / top.prefillPerSecond;
  if (seconds > BATCH_BUDGET_S) return { batches: [], batchNote: `other batch sizes not measured: their prefill would take about ${Math.round(seconds)} s here` };
  const batches: SpeedFigures['batches'] = [];
  const failed: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const batchSize of BATCHES) {
      if (failed.some((f) => f.startsWith(`${batchSize}:`))) continue;
      let c: LlamaContext;
      try {
        c = await context(top.threads, batchSize, BATCH_PREFILL + 1);
      } catch (e) {
        failed.push(`${batchSize}: ${(e as Error).message}`);
        continue;
      }
      try {
        const { prefillPerSecond } = await timeRun(c, tokens);
        const kept = batches.find((b) => b.batchSize === batchSize);
        if (!kept) batches.push({ batchSize, prefillPerSecond, slowestPerSecond: prefillPerSecond });
        else Object.assign(kept, { prefillPerSecond: Math.max(kept.prefillPerSecond, prefillPerSecond), slowestPerSecond: Math.min(kept.slowestPerSecond, prefillPerSecond) });
        step(`round ${round + 1} of ${ROUNDS}, batch ${whole(batchSize)}: prefill ${whole(prefillPerSecond)} tokens/s with ${top.threads} thread${top.threads === 1 ? '' : 's'}`);
      } finally {
        await c.dispose();
      }
    }
  }
  return { batches, ...(failed.length && { batchNote: `no context of batch ${failed.join('; ')}` }) };
}

/**
 * Tokens/s for evaluating `tokens` on a fresh sequence of `context`, then, with `decode`, the ms a
 * token of that many greedy steps of one token each (the first from `next`).
 */
async function timeRun(context: LlamaContext, tokens: Token[], decode = 0, next?: Token): Promise<{ prefillPerSecond: number; decodeMs: number }> {
  const sequence = context.getSequence();
  let started = performance.now();
  await sequence.evaluateWithoutGeneratingNewTokens(tokens);
  const prefillPerSecond = (tokens.length * 1000) / (performance.now() - started);
  if (decode === 0 || next === undefined) return { prefillPerSecond, decodeMs: 0 };
  let made = 0;
  started = performance.now();
  for await (const token of sequence.evaluate([next], { temperature: 0 })) {
    void token;
    if (++made >= decode) break;
  }
  return { prefillPerSecond, decodeMs: (performance.now() - started) / made };
}

const whole = (value: number) => Math.round(value).toLocaleString('en-US');

/** `count` tokens of code-like text in the model's own tokenizer (what a coding agent's context holds). */
function sampleTokens(model: LlamaModel, count: number): Token[] {
  const out: Token[] = [];
  for (let i = 0; out.length < count; i++) {
    out.push(...model.tokenize(`export function step${i}(queue: Job[]): number {\n  return queue.filter((job) => job.tries < ${i % 7}).length;\n}\n`));
  }
  return out.slice(0, count);
}
