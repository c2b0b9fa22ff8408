/**
 * Speculative decoding fed by the session's own text (issue 37): each session's sequence drafts the
 * next tokens by prompt lookup (node-llama-cpp's InputLookupTokenPredictor) over the whole prompt it
 * was sent, which in Keel is the session itself: every result it read, every file it was shown,
 * every earlier reply. A coding agent's edits copy the lines they replace, so drafts found there are
 * often right. The target model checks every draft in the same batch as its next token, so greedy
 * output is the same with and without it where the model's results for a token do not depend on
 * the batch it is in (measured at load: sameAloneAndInBatch); what it changes is the time a token takes.
 *
 * `auto` judges each session by its own figures, measured, not guessed: once JUDGED_AFTER tokens were
 * drafted, a session whose drafts were accepted less than MIN_ACCEPTANCE of the time drafts nothing
 * more; any other pauses drafting for PAUSED_TOKENS tokens to time decoding without it, and keeps
 * drafting only where a token took less time with drafts than without. Whether a draft pays depends
 * on the machine, not only on how often it is right: where decoding is bound by reading the weights
 * (a GPU, several threads) an extra position in the batch is nearly free, where it is bound by
 * compute (one CPU thread) it costs nearly a step (bench:reuse measured 14 % accepted decoding twice
 * as slow there, bench:decode 13 % still paying with more threads).
 */
import { InputLookupTokenPredictor, TokenPredictor, type LlamaContext, type LlamaContextSequence, type LlamaModel, type Token } from 'node-llama-cpp';
import type { SpeculationFigures } from '../core/engine/breaks.js';
import type { CacheStrategy, Choice, Speculation } from './localSettings.js';

/** Drafted tokens (accepted plus refuted) after which `auto` judges a session's acceptance. */
export const JUDGED_AFTER = 256;
/**
 * The acceptance below which drafting does not pay. The model checks a draft in the batch it
 * evaluates anyway: a refuted token costs one more position in that batch (a small fraction of a
 * step while decoding is bound by reading the weights) and its erasure from the cache, an accepted
 * one saves a whole step. So drafting pays while the share accepted exceeds the marginal cost of a
 * batch position; bench:decode measured drafts still paying at 13 % accepted on every fill and
 * flash attention setting. Under one in ten the drafts are near garbage: off.
 */
export const MIN_ACCEPTANCE = 0.1;
/** Tokens a judged session decodes with drafting paused, to time decoding without it. */
export const PAUSED_TOKENS = 128;
/** Tokens drafted at once: an edit copies whole lines, several tokens each. */
const DRAFT_TOKENS = 6;


/**
 * Whether a loaded model's sessions draft ('auto': judged per session), and why. `flashAttention` is
 * the context's (LlamaContext.flashAttention: 'auto' where llama.cpp decides, which is on where the
 * device supports it); `sameInBatch`, whether the context gives a token the same results alone as in
 * a batch (sameAloneAndInBatch; undefined before a load, where it cannot be measured).
 */
export function speculationUsed(setting: Speculation = 'auto', strategy: CacheStrategy, flashAttention: boolean | 'auto', sameInBatch?: boolean): Choice<Speculation> {
  if (setting === 'off') return { value: 'off', why: 'off by setting' };
  // node-llama-cpp takes a checkpoint before every drafted batch of a sequence that keeps checkpoints,
  // and Keel places its own there (checkpoints.ts): drafting is kept to caches that can be cut back anywhere.
  if (strategy === 'checkpoints') return { value: 'off', why: 'not used on a cache kept by checkpoints (each drafted batch would take one)' };
  // llama.cpp's flash attention computes a token's logits otherwise in a batch of several than alone,
  // so checking drafts in a batch can flip a near tie: bench:decode measured greedy replies that
  // differ at 16k on the CPU. Without flash attention they are byte-identical.
  if (flashAttention !== false) {
    return setting === 'on'
      ? { value: 'on', why: 'on by setting; with flash attention a greedy reply may differ where the model is near a tie' }
      : { value: 'off', why: 'auto: off with flash attention, whose results depend on the batch size (a greedy reply could change)' };
  }
  // Drafts are checked in a batch, each token alone without them: where llama.cpp's kernels take another
  // path for one row than for several (measured: this 2-core AVX-512 CPU, every logit a little other),
  // a near tie can flip, and bench:reuse's greedy check saw 2 of 4 replies differ.
  if (sameInBatch === false) {
    const why = 'a token\'s results differ alone and in a batch here (measured at load), so a greedy reply could change';
    return setting === 'on' ? { value: 'on', why: `on by setting; ${why}` } : { value: 'off', why: `auto: off: ${why}` };
  }
  return setting === 'on'
    ? { value: 'on', why: 'on by setting' }
    : { value: 'auto', why: `auto: each session judged after ${JUDGED_AFTER} drafted tokens, kept where at least ${MIN_ACCEPTANCE * 100} % are accepted and a token takes less time with drafts than without (timed over ${PAUSED_TOKENS} tokens with drafting paused)` };
}

/** A short stretch of code: tokens any model's vocabulary has, for the probe below. */
const PROBE_TEXT = 'export function total(items: Item[]): number {\n  return items.reduce((sum, item) => sum + item.price, 0);\n}\n';
/** The batch the probe's last token is evaluated in: the size of a drafted batch (the token and its drafts). */
const PROBE_BATCH = 1 + DRAFT_TOKENS;

/**
 * Whether this context gives a token the same next-token probabilities evaluated alone (as each
 * token is decoded without drafts) as last in a batch of several (as drafts are checked), to the
 * bit: a short probe on a sequence of its own (two evaluations of ~40 tokens), before any session.
 * False where no sequence is free to probe with: nothing is promised that was not measured.
 */
export async function sameAloneAndInBatch(context: LlamaContext, model: LlamaModel): Promise<boolean> {
  if (context.sequencesLeft === 0) return false;
  const tokens = model.tokenize(PROBE_TEXT);
  const sequence = context.getSequence();
  try {
    const after = async (kept: number) => {
      await sequence.eraseContextTokenRanges([{ start: 0, end: sequence.nextTokenIndex }]);
      await sequence.evaluateWithoutGeneratingNewTokens(tokens.slice(0, kept));
      const next = sequence.evaluateWithMetadata(tokens.slice(kept), { confidence: true }, { temperature: 0 });
      const first = await next.next();
      await next.return();
      return first.done ? undefined : first.value;
    };
    const alone = await after(tokens.length - 1);
    const inBatch = await after(tokens.length - PROBE_BATCH);
    return alone !== undefined && inBatch !== undefined && alone.token === inBatch.token && alone.confidence === inBatch.confidence;
  } finally {
    sequence.dispose();
  }
}

/**
 * One session's predictor around any drafter (prompt lookup, a draft model's sequence), with a switch
 * `auto` turns off for the rest of the session: once off, the drafter is told nothing more, so a draft
 * model stops evaluating too.
 */
export class SessionPredictor extends TokenPredictor {
  private offWhy?: string;
  /** Under `auto`: drafting, paused to time decoding without it, or kept after that. */
  private phase: 'drafting' | 'paused' | 'kept' = 'drafting';
  private before = { validated: 0, refuted: 0 };
  /** Decoding's time and tokens (after each reply's first) with drafts, and in the pause without. */
  private readonly timed = { drafting: { ms: 0, tokens: 0 }, paused: { ms: 0, tokens: 0 } };

  constructor(protected readonly drafter: TokenPredictor, private readonly judged: boolean) {
    super();
  }

  get off(): string | undefined {
    return this.offWhy;
  }

  /** Whether the drafter is used now (not off, not paused). */
  private get drafting(): boolean {
    return this.offWhy === undefined && this.phase !== 'paused';
  }

  reset(params: Parameters<TokenPredictor['reset']>[0]): Promise<void> | void {
    if (this.drafting) return this.drafter.reset(params);
  }

  pushTokens(tokens: Token[]): void {
    if (this.drafting) this.drafter.pushTokens(tokens);
  }

  predictTokens(): Token[] | Promise<Token[]> {
    return this.drafting ? this.drafter.predictTokens() : [];
  }

  override stop(untilPredictionsExhausted?: boolean): Promise<void> | void {
    return this.drafter.stop(untilPredictionsExhausted);
  }

  override updateInputTokens(tokens: Token[]): void {
    this.drafter.updateInputTokens(tokens);
  }

  override dispose(): void {
    this.drafter.dispose();
  }

  /**
   * The figures of the request that just ended (the sequence's counts since the last call; `decode`:
   * its decoding time and output tokens), and, under `auto`, the session's judgement so far.
   */
  figures(sequence: LlamaContextSequence, decode?: { ms: number; tokens: number }): SpeculationFigures {
    const { validated, refuted } = sequence.tokenPredictions;
    const request = { accepted: validated - this.before.validated, refuted: refuted - this.before.refuted };
    this.before = { validated, refuted };
    if (!this.judged || this.offWhy !== undefined || this.phase === 'kept') return request;
    const timing = this.timed[this.phase];
    if (decode && decode.tokens > 1) {
      timing.ms += decode.ms;
      timing.tokens += decode.tokens - 1;
    }
    const drafted = validated + refuted;
    if (this.phase === 'drafting') {
      if (drafted < JUDGED_AFTER) return request;
      if (validated / drafted < MIN_ACCEPTANCE) {
        return this.turnOff(request, `${validated} of ${drafted} drafted tokens accepted (${Math.round((100 * validated) / drafted)} %, under ${MIN_ACCEPTANCE * 100} %): off for this session`);
      }
      this.phase = 'paused';
      return request;
    }
    if (timing.tokens < PAUSED_TOKENS) return request;
    const per = (t: { ms: number; tokens: number }) => t.ms / Math.max(1, t.tokens);
    const [withDrafts, without] = [per(this.timed.drafting), per(this.timed.paused)];
    if (withDrafts < without) {
      this.phase = 'kept';
      return request;
    }
    return this.turnOff(request, `a token took ${withDrafts.toFixed(1)} ms with drafts and ${without.toFixed(1)} ms without: off for this session`);
  }

  private turnOff(request: SpeculationFigures, why: string): SpeculationFigures {
    this.offWhy = why;
    this.drafter.stop();
    return { ...request, off: why };
  }
}

/**
 * Prompt lookup over the request's whole prompt, which runRequest gives it (`updateInputTokens`)
 * before generating.
 */
export class SessionLookup extends SessionPredictor {
  constructor(judged: boolean) {
    super(new InputLookupTokenPredictor({ predictionLength: { max: DRAFT_TOKENS } }), judged);
  }
}
