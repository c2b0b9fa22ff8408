import type { RequestRow } from '../session/types.js';

/**
 * How long this engine takes to read a prompt's new tokens, learnt from the session's own requests
 * (each records its new tokens and its prefill time): a least-squares line `ms = fixed + perToken × n`
 * through the latest requests, so a request's fixed cost (a batch's setup, a checkpoint restored)
 * is not spread over its tokens. Fewer than two distinct sizes: the mean rate through zero.
 */
export interface PrefillSpeed {
  fixedMs: number;
  perTokenMs: number;
  /** How many requests it was learnt from. */
  requests: number;
}

/** Requests the line is drawn through: the latest, as the machine is now. */
const LATEST = 24;

export function prefillSpeed(rows: readonly RequestRow[]): PrefillSpeed | undefined {
  const points = rows.filter((r) => r.newTokens > 0 && r.prefillMs > 0).slice(-LATEST).map((r) => ({ n: r.newTokens, ms: r.prefillMs }));
  if (points.length === 0) return undefined;
  const meanN = points.reduce((s, p) => s + p.n, 0) / points.length;
  const meanMs = points.reduce((s, p) => s + p.ms, 0) / points.length;
  const spread = points.reduce((s, p) => s + (p.n - meanN) ** 2, 0);
  const through0 = { fixedMs: 0, perTokenMs: meanMs / meanN, requests: points.length };
  if (spread === 0) return through0;
  const slope = points.reduce((s, p) => s + (p.n - meanN) * (p.ms - meanMs), 0) / spread;
  const fixed = meanMs - slope * meanN;
  // A line that falls with size, or starts below zero, is noise: the mean rate says more.
  if (slope <= 0 || fixed < 0) return through0;
  return { fixedMs: fixed, perTokenMs: slope, requests: points.length };
}

/** Seconds to read `tokens` new tokens at this speed. */
export function prefillSeconds(speed: PrefillSpeed, tokens: number): number {
  return tokens === 0 ? 0 : (speed.fixedMs + speed.perTokenMs * tokens) / 1000;
}
