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

type AnyIterator = AsyncGenerator<unknown, unknown, unknown>;

/**
 * Wraps a sequence's `evaluateWithMetadata` (which `evaluate` calls) and
 * `evaluateWithoutGeneratingNewTokens` on the instance, so nothing of node-llama-cpp changes.
 */
export class SequenceProbe {
  private evals: Evaluation[] = [];
  private prompt?: Token[];
  private reused = 0;
  private sampled = 0;
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
        const r = await it.next(input);
        if (!timed) {
          first();
          timed = true;
        }
        if (r.done) return r.value;
        this.sampled++;
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
    this.sampled = 0;
    this.cachedBefore = this.sequence.nextTokenIndex;
    this.meterState = this.sequence.tokenMeter.getState();
  }

  /** The request ended: what it cost. */
  end(): RequestMeasure {
    const meter = this.sequence.tokenMeter.diff(this.meterState);
    const evaluated = this.sequence.contextTokens;
    return {
      turn: this.turn,
      prompt: this.prompt ?? evaluated,
      evaluated,
      cachedBefore: this.cachedBefore,
      reused: this.prompt ? this.reused : evaluated.length,
      newTokens: this.evals.reduce((n, e) => n + e.tokens, 0),
      prefillMs: this.evals.reduce((n, e) => n + e.ms, 0),
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

/** Prefill time as a function of tokens evaluated (n) and where they start (s): c + a·n + b·n·(s + n/2). */
export interface PrefillModel {
  c: number;
  a: number;
  b: number;
  samples: number;
}

export function prefillMs(m: PrefillModel, n: number, s: number): number {
  return n <= 0 ? m.c : m.c + m.a * n + m.b * n * (s + n / 2);
}

/** Least squares over every evaluation of every harness (the per-token and attention costs). */
export function fitPrefill(evals: Evaluation[]): PrefillModel {
  const rows = evals.filter((e) => e.tokens > 0).map((e) => [1, e.tokens, e.tokens * (e.start + e.tokens / 2), e.ms]);
  const ata = [[0, 0, 0], [0, 0, 0], [0, 0, 0]];
  const atb = [0, 0, 0];
  for (const r of rows) {
    for (let i = 0; i < 3; i++) {
      atb[i] += r[i] * r[3];
      for (let j = 0; j < 3; j++) ata[i][j] += r[i] * r[j];
    }
  }
  const [c, a, b] = solve3(ata, atb);
  return { c: Math.max(0, c), a: Math.max(0, a), b: Math.max(0, b), samples: rows.length };
}

function solve3(m: number[][], v: number[]): number[] {
  const det = (x: number[][]) =>
    x[0][0] * (x[1][1] * x[2][2] - x[1][2] * x[2][1]) - x[0][1] * (x[1][0] * x[2][2] - x[1][2] * x[2][0]) + x[0][2] * (x[1][0] * x[2][1] - x[1][1] * x[2][0]);
  const d = det(m);
  if (Math.abs(d) < 1e-12) return [0, 0, 0];
  return [0, 1, 2].map((col) => det(m.map((row, i) => row.map((x, j) => (j === col ? v[i] : x)))) / d);
}
