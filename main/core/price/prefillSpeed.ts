import type { RequestUsage } from '../engine/types.js';

/** What the fit reads of a request (the session's RequestRow has it). */
export type MeasuredRequest = Pick<RequestUsage, 'newTokens' | 'reusedTokens' | 'prefillMs'>;

/**
 * How long this engine takes to read a prompt's new tokens, learnt from the session's own requests
 * (each records how many tokens it read, after how many it kept, and its prefill time).
 */
export interface PrefillSpeed {
  points: readonly Point[];
  /** How many requests it was learnt from. */
  requests: number;
}

/** What reading costs near one size and depth: `ms = fixedMs + perTokenMs·n + perDepthMs·n·(s + n/2)`. */
export interface PrefillCost {
  fixedMs: number;
  perTokenMs: number;
  perDepthMs: number;
}

interface Point { n: number; x: number[]; ms: number }

/**
 * Requests the fit is drawn through: the latest, enough to reach back to reads as shallow as a
 * compaction's (the latest of a long session are all deep) and few enough to hold each out in turn.
 */
const LATEST = 256;
/** How many requests (in effect) a fit near one read draws on: the closest in size and depth weigh most, as many as it takes. */
const NEAR = 8;
/**
 * How much more a difference in depth counts than one in size: a token twice as deep costs nearly
 * twice as much to read, a batch twice as wide a little less a token.
 */
const DEPTH_WEIGHT = 3;

const TERMS = 3;
/** The term that grows faster than the tokens read: attention over what each follows (2). */
const DEPTH = 0b100;
const features = (n: number, s: number) => [1, n, n * (s + n / 2)];
/** The mean depth of a read's tokens: how many each follows. */
const depthOf = (p: Point) => p.x[2] / p.n;

export function prefillSpeed(rows: readonly MeasuredRequest[]): PrefillSpeed | undefined {
  const points = rows.filter((r) => r.newTokens > 0 && r.prefillMs > 0).slice(-LATEST)
    .map((r) => ({ n: r.newTokens, x: features(r.newTokens, r.reusedTokens), ms: r.prefillMs }));
  return points.length === 0 ? undefined : { points, requests: points.length };
}

/**
 * The cost of reading `tokens` new tokens after `start` kept ones: a request's fixed part, a part per
 * token and attention over what each token follows (n·(s + n/2)), by least squares through the
 * requests, each coefficient at least zero.
 *
 * - The errors are relative to each request's own time: a price is read as "about S seconds", so a
 *   small read 50 % off matters as much as a large one (plain least squares lets the few largest
 *   requests decide).
 * - The requests closest in size and depth weigh most (a Gaussian in log n and, DEPTH_WEIGHT times
 *   more, in log depth, as wide as it takes for NEAR of them to count; all alike where there are
 *   fewer): a batch of 20 tokens costs more per token than one of 300 (matrix kernels are less
 *   efficient on narrow batches), and a token 19k deep three times one 5k deep, which no one line
 *   through all prices well at both ends (bench:reuse: a compaction's read 5.5k deep, priced from the
 *   latest 24 requests, all small reads 19k deep, at 3.25× its time).
 * - Which terms are kept is chosen by how well the fit predicts each request from the others (leave
 *   one out), not by how closely it passes through all of them.
 * - A read larger than all of them keeps attention over depth: it is priced by its size and its own
 *   depth, not by their fixed part or their cost per token at their depth.
 * - Where no set of terms can be checked so (one request), its time is the fixed part (a read
 *   larger than it: its time per token).
 *
 * A break's dropped cells are not a term: dropping them costs llama.cpp nothing measurable, and a
 * term only the few breaks can tell fitted their noise (bench:reuse: a compaction priced at 2.8×
 * its time on the cells it dropped).
 */
export function prefillCost(speed: PrefillSpeed, tokens: number, start: number): PrefillCost {
  const { points } = speed;
  const depth = start + tokens / 2;
  const w = weightsNear(points, tokens, depth);
  // A read larger than every request keeps attention over depth: a fixed part alone, which noisy small
  // reads can favour, prices 5,000 tokens as 50, and a cost per token alone, which reads all about as deep
  // cannot tell from attention, a whole prompt read from 0 as if each token were as deep as they were
  // (bench:reuse: a switch at 1.66× its time).
  const larger = points.every((p) => p.n < tokens);
  let best: { c: number[]; error: number } | undefined;
  // Every non-empty subset of the terms (bit k: term k).
  for (let mask = 1; mask < 1 << TERMS; mask++) {
    if (larger && !(mask & DEPTH)) continue;
    const terms = [...Array(TERMS).keys()].filter((k) => mask & (1 << k));
    const c = fitted(points, w, terms);
    const error = c && heldOutError(points, w, terms);
    if (c && error !== undefined && (!best || error < best.error)) best = { c, error };
  }
  const [fixedMs, perTokenMs, perDepthMs] = best?.c ?? fitted(points, w, [larger ? 1 : 0])!;
  return { fixedMs, perTokenMs, perDepthMs };
}

/**
 * Each point's weight for a read of `tokens` at `depth`: the narrowest Gaussian in log size and depth
 * over which NEAR points count, else all alike; the nearest weighs 1 (a far read's weights would all
 * round to 0).
 */
function weightsNear(points: readonly Point[], tokens: number, depth: number): number[] {
  const distance = points.map((p) => Math.hypot(Math.log(p.n / tokens), DEPTH_WEIGHT * Math.log(depthOf(p) / depth)));
  const nearest = Math.min(...distance);
  for (let width = 0.25; width < 64; width *= 1.25) {
    const w = distance.map((d) => Math.exp(-(d * d - nearest * nearest) / (2 * width * width)));
    const sum = w.reduce((a, b) => a + b, 0);
    if (sum * sum >= NEAR * w.reduce((a, b) => a + b * b, 0)) return w;
  }
  return points.map(() => 1);
}

/** The coefficients (all terms, those left out 0) closest to the points relatively, by weight; undefined where they cannot tell them, or one is below 0. */
function fitted(points: readonly Point[], w: readonly number[], terms: readonly number[]): number[] | undefined {
  // Each request's equation divided by its time and scaled by √weight: the squares summed are of weighted relative errors.
  const solved = leastSquares(points.map((p, i) => terms.map((k) => (p.x[k] / p.ms) * Math.sqrt(w[i]))), w.map(Math.sqrt));
  if (!solved || solved.some((c) => c < 0)) return undefined;
  const c = Array<number>(TERMS).fill(0);
  terms.forEach((k, i) => { c[k] = solved[i]; });
  return c;
}

/** The weighted squared relative errors of predicting each point from the others alone; undefined where some cannot be. */
function heldOutError(points: readonly Point[], w: readonly number[], terms: readonly number[]): number | undefined {
  let error = 0;
  for (let i = 0; i < points.length; i++) {
    const others = (_: unknown, j: number) => j !== i;
    const c = fitted(points.filter(others), w.filter(others), terms);
    if (!c) return undefined;
    error += w[i] * (1 - dot(c, points[i].x) / points[i].ms) ** 2;
  }
  return error;
}

/** Seconds to read `tokens` new tokens after `start` kept ones, at this speed. */
export function prefillSeconds(speed: PrefillSpeed, tokens: number, start: number): number {
  if (tokens === 0) return 0;
  const c = prefillCost(speed, tokens, start);
  return dot([c.fixedMs, c.perTokenMs, c.perDepthMs], features(tokens, start)) / 1000;
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
