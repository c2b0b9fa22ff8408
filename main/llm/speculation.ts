/**
 * Speculative decoding fed by the session's own text (issue 37): each session's sequence drafts the
 * next tokens by prompt lookup (node-llama-cpp's InputLookupTokenPredictor) over the whole prompt it
 * was sent, which in Keel is the session itself: every result it read, every file it was shown,
 * every earlier reply. A coding agent's edits copy the lines they replace, so drafts found there are
 * often right. The target model checks every draft in the same batch as its next token, so greedy
 * output is the same with and without it (where attention's results do not depend on the batch
 * size: without flash attention); what it changes is the time a token takes.
 *
 * `auto` judges each session by its own figures: once JUDGED_AFTER tokens were drafted, a session
 * whose drafts were accepted less than MIN_ACCEPTANCE of the time drafts nothing more.
 */
import { InputLookupTokenPredictor, TokenPredictor, type LlamaContextSequence, type Token } from 'node-llama-cpp';
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
/** Tokens drafted at once: an edit copies whole lines, several tokens each. */
const DRAFT_TOKENS = 6;


/**
 * Whether a loaded model's sessions draft ('auto': judged per session), and why. `flashAttention` is
 * the context's (LlamaContext.flashAttention: 'auto' where llama.cpp decides, which is on where the
 * device supports it).
 */
export function speculationUsed(setting: Speculation = 'auto', strategy: CacheStrategy, flashAttention: boolean | 'auto'): Choice<Speculation> {
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
  return setting === 'on'
    ? { value: 'on', why: 'on by setting' }
    : { value: 'auto', why: `auto: on while at least ${MIN_ACCEPTANCE * 100} % of drafted tokens are accepted (judged after ${JUDGED_AFTER})` };
}

/**
 * One session's predictor around any drafter (prompt lookup, a draft model's sequence), with a switch
 * `auto` turns off for the rest of the session: once off, the drafter is told nothing more, so a draft
 * model stops evaluating too.
 */
export class SessionPredictor extends TokenPredictor {
  private offWhy?: string;
  private before = { validated: 0, refuted: 0 };

  constructor(protected readonly drafter: TokenPredictor, private readonly judged: boolean) {
    super();
  }

  get off(): string | undefined {
    return this.offWhy;
  }

  reset(params: Parameters<TokenPredictor['reset']>[0]): Promise<void> | void {
    if (this.offWhy === undefined) return this.drafter.reset(params);
  }

  pushTokens(tokens: Token[]): void {
    if (this.offWhy === undefined) this.drafter.pushTokens(tokens);
  }

  predictTokens(): Token[] | Promise<Token[]> {
    return this.offWhy === undefined ? this.drafter.predictTokens() : [];
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
   * The figures of the request that just ended (the sequence's counts since the last call), and,
   * under `auto`, the session's judgement on all its drafts so far.
   */
  figures(sequence: LlamaContextSequence): SpeculationFigures {
    const { validated, refuted } = sequence.tokenPredictions;
    const request = { accepted: validated - this.before.validated, refuted: refuted - this.before.refuted };
    this.before = { validated, refuted };
    const drafted = validated + refuted;
    if (this.judged && this.offWhy === undefined && drafted >= JUDGED_AFTER && validated / drafted < MIN_ACCEPTANCE) {
      this.offWhy = `${validated} of ${drafted} drafted tokens accepted (${Math.round((100 * validated) / drafted)} %, under ${MIN_ACCEPTANCE * 100} %): off for this session`;
      this.drafter.stop();
      return { ...request, off: this.offWhy };
    }
    return request;
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
