import type { RequestUsage } from '../engine/types.js';

/** What the fit reads of a request (the session's RequestRow has it). */
export type MeasuredRequest = Pick<RequestUsage, 'newTokens' | 'reusedTokens' | 'cachedBefore' | 'prefillMs'>;

/**
 * How long this engine takes to read a prompt's new tokens, learnt from the session's own requests
 * (each records how many tokens it read, after how many it kept, what it dropped of the cache, and
 * its prefill time). Reading n tokens after s, having dropped e cached ones, costs a request's fixed
 * part, a part per token, attention over what each token follows (n·(s + n/2)) and the cells dropped:
 * `ms = fixedMs + perTokenMs·n + perDepthMs·n·(s + n/2) + perDroppedMs·e`, by least squares through
 * the latest requests, each coefficient at least zero.
 *
 * The errors are relative to each request's own time: a price is read as "about S seconds", so a
 * small read 50 % off matters as much as a large one (plain least squares lets the few largest
 * requests decide). Which terms the fit keeps is chosen by how well it predicts each request from
 * the others (leave one out), not by how closely it passes through all of them: a term that only a
 * request or two can tell (the cost of dropped cells, after one break) would fit their noise
 * exactly and price the next break on it. Where no set of terms can be checked so (a single
 * request), the fixed part alone is its time.
 */
export interface PrefillSpeed {
  fixedMs: number;
  perTokenMs: number;
  perDepthMs: number;
  perDroppedMs: number;
  /** How many requests it was learnt from. */
  requests: number;
}

/** Requests the fit is drawn through: the latest, as the machine is now. */
const LATEST = 24;

const TERMS = 4;
const features = (n: number, s: number, e: number) => [1, n, n * (s + n / 2), e];

export function prefillSpeed(rows: readonly MeasuredRequest[]): PrefillSpeed | undefined {
  const points = rows.filter((r) => r.newTokens > 0 && r.prefillMs > 0).slice(-LATEST)
    .map((r) => ({ x: features(r.newTokens, r.reusedTokens, Math.max(0, r.cachedBefore - r.reusedTokens)), ms: r.prefillMs }));
  if (points.length === 0) return undefined;
  let best: { c: number[]; error: number } = { c: fitted(points, [0])!, error: Infinity };
  // Every non-empty subset of the terms (bit k: term k).
  for (let mask = 1; mask < 1 << TERMS; mask++) {
    const terms = [...Array(TERMS).keys()].filter((k) => mask & (1 << k));
    const c = fitted(points, terms);
    const error = c && heldOutError(points, terms);
    if (c && error !== undefined && error < best.error) best = { c, error };
  }
  const [fixedMs, perTokenMs, perDepthMs, perDroppedMs] = best.c;
  return { fixedMs, perTokenMs, perDepthMs, perDroppedMs, requests: points.length };
}

interface Point { x: number[]; ms: number }

/** The coefficients (all terms, those left out 0) closest to the points relatively; undefined where they cannot tell them, or one is below 0. */
function fitted(points: readonly Point[], terms: readonly number[]): number[] | undefined {
  // Each request's equation divided by its time: the squares summed are of relative errors.
  const solved = leastSquares(points.map((p) => terms.map((k) => p.x[k] / p.ms)), points.map(() => 1));
  if (!solved || solved.some((c) => c < 0)) return undefined;
  const c = Array<number>(TERMS).fill(0);
  terms.forEach((k, i) => { c[k] = solved[i]; });
  return c;
}

/** The squared relative errors of predicting each point from the others alone; undefined where some cannot be. */
function heldOutError(points: readonly Point[], terms: readonly number[]): number | undefined {
  let error = 0;
  for (let i = 0; i < points.length; i++) {
    const c = fitted(points.filter((_, j) => j !== i), terms);
    if (!c) return undefined;
    error += (1 - dot(c, points[i].x) / points[i].ms) ** 2;
  }
  return error;
}

/** Seconds to read `tokens` new tokens after `start` kept ones, having dropped `dropped` cached ones, at this speed. */
export function prefillSeconds(speed: PrefillSpeed, tokens: number, start: number, dropped = 0): number {
  if (tokens === 0) return 0;
  return dot([speed.fixedMs, speed.perTokenMs, speed.perDepthMs, speed.perDroppedMs], features(tokens, start, dropped)) / 1000;
}

function dot(a: number[], b: number[]): number {
  return a.reduce((s, v, i) => s + v * b[i], 0);
}

/** The least-squares solution of X·c ≈ y (normal equations, Gaussian elimination); undefined where singular. */
function leastSquares(x: number[][], y: number[]): number[] | undefined {
  if (x.length === 0) return undefined;
  const k = x[0].length;
  const a = Array.from({ length: k }, (_, i) => [
    ...Array.from({ length: k }, (_, j) => x.reduce((s, row) => s + row[i] * row[j], 0)),
    x.reduce((s, row, r) => s + row[i] * y[r], 0),
  ]);
  for (let col = 0; col < k; col++) {
    const pivot = a.slice(col).reduce((p, row, i) => (Math.abs(row[col]) > Math.abs(a[p][col]) ? col + i : p), col);
    if (Math.abs(a[pivot][col]) < 1e-12 * Math.max(1, Math.abs(a[col][col]))) return undefined;
    [a[col], a[pivot]] = [a[pivot], a[col]];
    for (let r = 0; r < k; r++) {
      if (r === col) continue;
      const f = a[r][col] / a[col][col];
      for (let j = col; j <= k; j++) a[r][j] -= f * a[col][j];
    }
  }
  return a.map((row, i) => row[k] / row[i]);
}
