/** Classifying breaks and printing the figures of bench:reuse. */
import type { LoadedModel } from '../../main/llm/model.js';
import type { HarnessRun } from './keel.js';
import { analyse, prefillMs, type PrefillModel, type RequestMeasure } from './measure.js';
import type { NaiveRequest } from './naive.js';
import type { Reply } from './script.js';
import { fmt, ratio, secs } from './numbers.js';

/**
 * Fills each request's firstDiff, lost and ideal, and the cause of every break: Keel's as it
 * recorded it; for the others from where the prompt first differs from what the previous request
 * left evaluated — at the naive harness's own rewrites (its date, its pruning), in the system
 * prompt, inside the previous reply (the reply and its call as re-rendered against as generated),
 * or earlier.
 */
export function classify(run: HarnessRun, replies: Reply[], model: LoadedModel, callMarkers: string[]): void {
  analyse(run.requests);
  const text = (tokens: readonly number[]) => model.model.detokenize(tokens as never, true);
  run.requests.forEach((r, i) => {
    if (run.name === 'Keel') {
      if (r.lost > 0 && !r.cause) r.cause = 'unrecorded';
      return;
    }
    if (i === 0 || r.lost === 0) return;
    const n = r as NaiveRequest;
    const near = (pos: number | undefined) => pos !== undefined && Math.abs(r.firstDiff - pos) <= 2;
    const prev = run.requests[i - 1];
    const p = r.firstDiff;
    const around = text(r.prompt.slice(Math.max(0, p - 12), p + 12)) + text(prev.evaluated.slice(p, p + 12));
    if (near(n.datePos)) r.cause = 'date change';
    else if (near(n.prunePos)) r.cause = 'pruning';
    else if (run.systemEnd !== undefined && p < run.systemEnd) r.cause = 'system prompt changed';
    else if (p >= prev.prompt.length - 1 && !replies[i - 1]?.call) r.cause = 'reply re-tokenized';
    else if (p >= prev.prompt.length - 1 || callMarkers.some((m) => m !== '' && around.includes(m))) r.cause = 're-render around tool calls';
    else r.cause = 'earlier text re-rendered';
  });
}

export interface Summary {
  requests: number;
  promptTokens: number;
  finalPrompt: number;
  reused: number;
  newTokens: number;
  prefillMs: number;
  generationMs: number;
  /** The mean sequence length a reply token was generated at. */
  meanContext: number;
  sampled: number;
  breaks: number;
  lost: number;
  causes: Map<string, { count: number; lost: number; example?: string }>;
  ideal: number;
  idealPrefillMs: number;
  meterInput: number;
  meterOutput: number;
  elapsedMs: number;
}

export function summarise(run: HarnessRun, fit: PrefillModel, model: LoadedModel): Summary {
  const rs = run.requests;
  const causes = new Map<string, { count: number; lost: number; example?: string }>();
  rs.forEach((r, i) => {
    if (!r.cause && r.lost === 0) return;
    const key = r.cause ?? 'unknown';
    const c = causes.get(key) ?? { count: 0, lost: 0 };
    c.count++;
    c.lost += r.lost;
    c.example ??= i > 0 ? divergence(model, rs[i - 1], r) : undefined;
    causes.set(key, c);
  });
  const sum = (f: (r: RequestMeasure) => number) => rs.reduce((n, r) => n + f(r), 0);
  return {
    requests: rs.length,
    promptTokens: sum((r) => r.prompt.length),
    finalPrompt: rs[rs.length - 1]?.prompt.length ?? 0,
    reused: sum((r) => r.reused),
    newTokens: sum((r) => r.newTokens),
    prefillMs: sum((r) => r.prefillMs),
    generationMs: sum((r) => r.generationMs),
    meanContext: sum((r) => r.sampledAt) / Math.max(1, sum((r) => r.sampled)),
    sampled: sum((r) => r.sampled),
    breaks: rs.filter((r) => r.lost > 0).length,
    lost: sum((r) => r.lost),
    causes,
    ideal: sum((r) => r.ideal),
    // The fit prices the ideal against what this harness's own evaluations cost by the same fit,
    // and that ratio scales the measured time: a harness that evaluated exactly its ideal gets 1.00×.
    idealPrefillMs: sum((r) => r.prefillMs) * sum((r) => prefillMs(fit, r.ideal, r.prompt.length - r.ideal)) /
      Math.max(1e-9, sum((r) => r.evaluations.reduce((n, e) => n + prefillMs(fit, e.tokens, e.start), 0))),
    meterInput: sum((r) => r.meterInput),
    meterOutput: sum((r) => r.meterOutput),
    elapsedMs: run.elapsedMs,
  };
}

/** Where a request's prompt left what the previous one evaluated: the text just before, then both sides. */
export function divergence(model: LoadedModel, prev: RequestMeasure, r: RequestMeasure): string {
  const p = r.firstDiff;
  const text = (tokens: readonly number[]) => JSON.stringify(model.model.detokenize(tokens as never, true));
  return `at token ${p}, after ${text(r.prompt.slice(Math.max(0, p - 8), p))}: was ${text(prev.evaluated.slice(p, p + 10))}, now ${text(r.prompt.slice(p, p + 10))}`;
}

export { fmt, ratio, secs };

export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/**
 * A harness's decode cost at a context size: the decode steps of its replies (prefill apart:
 * measure.ts DecodeStep) that ran with `from`–`to` tokens in the sequence, their time fitted by
 * least squares as a line in the context and read at `at`. A step costs more the longer the
 * context, and harnesses whose prompts differ in length spend their steps at different points of
 * the window: read at one context, their figures compare the same thing.
 */
export interface DecodeFigure {
  steps: number;
  /** The fitted time of a step at `at` (the mean where the steps' contexts do not vary). */
  msPerToken: number;
  /** The mean time and context of the steps counted. */
  meanMs: number;
  meanAt: number;
  /** The context range of all the harness's decode steps (to say where they ran, where none is in the window). */
  range?: [number, number];
}

export function decodeAt(run: HarnessRun, from: number, to: number, at: number): DecodeFigure {
  const all = run.requests.flatMap((r) => r.decodeSteps);
  const steps = all.filter((s) => s.at >= from && s.at <= to);
  const n = steps.length;
  const meanAt = steps.reduce((sum, s) => sum + s.at, 0) / n;
  const meanMs = steps.reduce((sum, s) => sum + s.ms, 0) / n;
  const sxx = steps.reduce((sum, s) => sum + (s.at - meanAt) ** 2, 0);
  const slope = sxx > 0 ? steps.reduce((sum, s) => sum + (s.at - meanAt) * (s.ms - meanMs), 0) / sxx : 0;
  return {
    steps: n,
    msPerToken: n ? meanMs + slope * (at - meanAt) : NaN,
    meanMs: n ? meanMs : NaN,
    meanAt: n ? meanAt : NaN,
    ...(all.length > 0 && { range: all.reduce<[number, number]>(([lo, hi], s) => [Math.min(lo, s.at), Math.max(hi, s.at)], [Infinity, -Infinity]) }),
  };
}
