/**
 * What bench:reuse measures, the same way for every harness: a probe on the context sequence sees
 * every evaluation the harness asks for (the tokens it hands in, where in the sequence they start,
 * how long until the first sampled token), and the harness marks where each request begins and
 * ends. From the tokens of each request's prompt and of what the sequence held after it, the
 * analysis finds reuse, breaks and the ideal.
 */
import { diffArrays } from 'diff';
import type { LlamaContextSequence, Token } from 'node-llama-cpp';

/** One evaluation the harness asked for. Sampled tokens fed back by the generator are not one. */
export interface Evaluation {
  /** Where in the sequence the tokens start (what was kept of the cache). */
  start: number;
  tokens: number;
  /** Until the first sampled token (or until done, for an evaluation that samples nothing). */
  ms: number;
}

export interface RequestMeasure {
  /** 1-based turn of the scripted session. */
  turn: number;
  /** The prompt: the tokens the first evaluation of the request completed the sequence to. */
  prompt: Token[];
  /** What the sequence held after the request: the prompt and the reply tokens evaluated. */
  evaluated: Token[];
  /** Tokens the sequence held when the request began. */
  cachedBefore: number;
  /** Tokens of the prompt kept from the cache (where the first evaluation started). */
  reused: number;
  /** Input tokens evaluated during the request (prompt tail and any re-evaluation, not fed-back samples). */
  newTokens: number;
  prefillMs: number;
  /** The model's time for the reply's tokens after the first: each `next` of the evaluation awaited (what the harness does between them not counted). */
  generationMs: number;
  /** The sequence's length at each reply token (summed), for the cost per token against the context. */
  sampledAt: number;
  /** Each decode step of the reply (every `next` after the first that gave a token): the context it ran at and its time. */
  decodeSteps: DecodeStep[];
  evaluations: Evaluation[];
  sampled: number;
  meterInput: number;
  meterOutput: number;
  /** Set by the harness (Keel records its own) or by its classifier. */
  cause?: string;
  /** Filled by `analyse`. */
  firstDiff: number;
  lost: number;
  ideal: number;
}

/**
 * One decode step: the model evaluated the token before (sampled or forced) and sampled the next,
 * with `at` tokens in the sequence after it. Prefill (an evaluation's first `next`) is never one.
 */
export interface DecodeStep {
  at: number;
  ms: number;
}

type AnyIterator = AsyncGenerator<unknown, unknown, unknown>;

/**
 * Wraps a sequence's `evaluateWithMetadata` (which `evaluate` calls) and
 * `evaluateWithoutGeneratingNewTokens` on the instance, so nothing of node-llama-cpp changes.
 */
export class SequenceProbe {
  private evals: Evaluation[] = [];
  private prompt?: Token[];
  private sampledPrompt?: Token[];
  private reused = 0;
  private sampled = 0;
  private generationMs = 0;
  private sampledAt = 0;
  private decodeSteps: DecodeStep[] = [];
  private cachedBefore = 0;
  private meterState: ReturnType<LlamaContextSequence['tokenMeter']['getState']>;
  private turn = 0;

  constructor(readonly sequence: LlamaContextSequence) {
    this.meterState = sequence.tokenMeter.getState();
    const seq = sequence as unknown as {
      evaluateWithMetadata: (tokens: Token[], metadata: object, options?: object) => AnyIterator;
      evaluateWithoutGeneratingNewTokens: (tokens: Token[], options?: object) => Promise<void>;
    };
    const withMeta = seq.evaluateWithMetadata.bind(sequence);
    const without = seq.evaluateWithoutGeneratingNewTokens.bind(sequence);
    seq.evaluateWithMetadata = (tokens, metadata, options) => {
      const rec = this.record(tokens);
      const t0 = performance.now();
      return this.timed(withMeta(tokens, metadata, options), () => { rec.ms = performance.now() - t0; });
    };
    seq.evaluateWithoutGeneratingNewTokens = async (tokens, options) => {
      const rec = this.record(tokens);
      const t0 = performance.now();
      try {
        await without(tokens, options);
      } finally {
        rec.ms = performance.now() - t0;
      }
    };
  }

  private record(tokens: Token[]): Evaluation {
    const start = this.sequence.nextTokenIndex;
    if (!this.prompt) {
      this.prompt = [...this.sequence.contextTokens.slice(0, start), ...tokens];
      this.reused = start;
    }
    const rec = { start, tokens: tokens.length, ms: 0 };
    this.evals.push(rec);
    return rec;
  }

  private async *timed(it: AnyIterator, first: () => void): AnyIterator {
    let timed = false;
    try {
      let input: unknown;
      while (true) {
        const t0 = performance.now();
        const r = await it.next(input);
        if (!timed) {
          first();
          timed = true;
          // What the sequence holds when the first token is sampled is the prompt, whatever was
          // evaluated on the way (a hybrid model's re-read from a checkpoint comes first).
          this.sampledPrompt = this.sequence.contextTokens;
        } else {
          const ms = performance.now() - t0;
          this.generationMs += ms;
          if (!r.done) this.decodeSteps.push({ at: this.sequence.nextTokenIndex, ms });
        }
        if (r.done) return r.value;
        this.sampled++;
        this.sampledAt += this.sequence.nextTokenIndex;
        input = yield r.value;
      }
    } finally {
      await it.return(undefined);
    }
  }

  /** A request begins (for the turn given). */
  begin(turn: number): void {
    this.turn = turn;
    this.evals = [];
    this.prompt = undefined;
    this.sampledPrompt = undefined;
    this.sampled = 0;
    this.generationMs = 0;
    this.sampledAt = 0;
    this.decodeSteps = [];
    this.cachedBefore = this.sequence.nextTokenIndex;
    this.meterState = this.sequence.tokenMeter.getState();
  }

  /** The request ended: what it cost. */
  end(): RequestMeasure {
    const meter = this.sequence.tokenMeter.diff(this.meterState);
    const evaluated = this.sequence.contextTokens;
    const prompt = this.sampledPrompt ?? this.prompt ?? evaluated;
    const newTokens = this.evals.reduce((n, e) => n + e.tokens, 0);
    return {
      turn: this.turn,
      prompt,
      evaluated,
      cachedBefore: this.cachedBefore,
      reused: this.sampledPrompt ? Math.max(0, prompt.length - newTokens) : this.prompt ? this.reused : evaluated.length,
      newTokens,
      prefillMs: this.evals.reduce((n, e) => n + e.ms, 0),
      generationMs: this.generationMs,
      sampledAt: this.sampledAt,
      decodeSteps: this.decodeSteps,
      evaluations: this.evals,
      sampled: this.sampled,
      meterInput: meter.usedInputTokens,
      meterOutput: meter.usedOutputTokens,
      firstDiff: 0,
      lost: 0,
      ideal: 0,
    };
  }
}

export function commonPrefix(a: readonly Token[], b: readonly Token[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/**
 * Tokens of `prompt` that `before` (what the previous request left evaluated) does not hold in
 * the same order: the tokens a token-level diff (Myers, minimal) marks as added. An append-only
 * prompt's are the appended tail; a prompt that rewrote earlier text adds only the rewritten
 * tokens (a new date, a "[pruned]" marker), not the unchanged text after them.
 */
export function novelTokens(before: readonly Token[], prompt: readonly Token[]): number {
  const p = commonPrefix(before, prompt);
  if (p === before.length) return prompt.length - p;
  const changes = diffArrays(before.slice(p) as Token[], prompt.slice(p) as Token[]);
  return changes.reduce((n, c) => n + (c.added ? c.count ?? c.value.length : 0), 0);
}

/**
 * Fills firstDiff (the prompt's common prefix with what the previous request left evaluated),
 * lost (the cached tokens past that point, which the request could not reuse) and ideal (the
 * request's novel tokens: what a harness that never evaluates a token twice would evaluate).
 */
export function analyse(reqs: RequestMeasure[]): void {
  let before: Token[] = [];
  for (const r of reqs) {
    r.firstDiff = commonPrefix(before, r.prompt);
    r.lost = Math.max(0, Math.min(r.cachedBefore, before.length) - r.firstDiff);
    r.ideal = novelTokens(before, r.prompt);
    before = r.evaluated;
  }
}

/**
 * Prefill time as a function of the tokens evaluated (n) and where they start (s): a least-squares
 * fit on the features 1, s, n, n·s, n², √n·s. The √n·s term is the batch's attention cost, which
 * grows more slowly than n on this CPU: a batch of 20 tokens at position 14,000 costs about as much
 * as 18 one-token steps, a batch of 4,000 tokens far less per token and position.
 */
export interface PrefillModel {
  coef: number[];
  samples: number;
  /** Median of |fit − measured| / measured over the samples. */
  medianError: number;
}

const features = (n: number, s: number) => [1, s, n, n * s, n * n, Math.sqrt(n) * s];

export function prefillMs(m: PrefillModel, n: number, s: number): number {
  if (n <= 0) return 0;
  const f = features(n, s);
  return Math.max(0, f.reduce((sum, x, i) => sum + x * m.coef[i], 0));
}

/** Weighted least squares (weights 1/√ms, between absolute and relative error) over all evaluations. */
export function fitPrefill(evals: Evaluation[]): PrefillModel {
  const rows = evals.filter((e) => e.tokens > 0);
  const k = features(1, 1).length;
  const x = rows.map((e) => features(e.tokens, e.start));
  const w = rows.map((e) => 1 / Math.sqrt(Math.max(e.ms, 5)));
  // Columns scaled to unit RMS, so the normal equations stay well conditioned.
  const scale = Array.from({ length: k }, (_, j) => Math.sqrt(x.reduce((n, r) => n + r[j] ** 2, 0) / Math.max(1, x.length)) || 1);
  const ata = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  const atb = new Array<number>(k).fill(0);
  rows.forEach((e, r) => {
    const xs = x[r].map((v, j) => (v / scale[j]) * w[r]);
    const y = e.ms * w[r];
    for (let i = 0; i < k; i++) {
      atb[i] += xs[i] * y;
      for (let j = 0; j < k; j++) ata[i][j] += xs[i] * xs[j];
    }
  });
  const coef = solve(ata, atb).map((c, j) => c / scale[j]);
  const model = { coef, samples: rows.length, medianError: 0 };
  const errors = rows.map((e) => Math.abs(prefillMs(model, e.tokens, e.start) - e.ms) / Math.max(e.ms, 1)).sort((a, b) => a - b);
  model.medianError = errors[Math.floor(errors.length / 2)] ?? 0;
  return model;
}

/** Gaussian elimination with partial pivoting; a singular system gives zeros. */
function solve(m: number[][], v: number[]): number[] {
  const n = v.length;
  const a = m.map((row, i) => [...row, v[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(a[r][c]) > Math.abs(a[p][c])) p = r;
    if (Math.abs(a[p][c]) < 1e-12) return new Array<number>(n).fill(0);
    [a[c], a[p]] = [a[p], a[c]];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = a[r][c] / a[c][c];
      for (let j = c; j <= n; j++) a[r][j] -= f * a[c][j];
    }
  }
  return a.map((row, i) => row[n] / row[i]);
}
