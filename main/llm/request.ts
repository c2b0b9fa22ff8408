import type { LlamaContextSequence, LlamaModel, LlamaText, Token } from 'node-llama-cpp';
import type { CheckpointUse } from './record.js';
import type { SequenceCheckpoints } from './checkpoints.js';
import { EvaluatedText, promptTokens, type PromptTokens } from './splice.js';
import type { ReplyFormat } from './replyFormat.js';
import { ReplyStream } from './replyStream.js';

/** Scripted replies (teacher forcing): each request's reply is given as text and sampled exactly. */
export interface Script {
  next(): string | undefined;
}

export interface RequestOptions {
  sequence: LlamaContextSequence;
  model: LlamaModel;
  prompt: LlamaText;
  stopTriggers: LlamaText[];
  /** End-of-generation tokens (as text) after which the model goes on writing: the wrapper re-renders there. */
  continueOn: string[];
  format: ReplyFormat;
  /** What, once written, can complete a call in this format (replyStream.ts `callEnds`). */
  callEnds: readonly string[];
  /**
   * Whether the template writes a reply's several calls together, then their results (node-llama-cpp's
   * `functions.parallelism`): only then may a reply go on after a complete call, as it would be rendered again.
   */
  callsTogether?: boolean;
  maxTokens: number;
  temperature: number;
  signal?: AbortSignal;
  onText?: (delta: string) => void;
  /** The reply to force, as text (special tokens parsed); undefined samples freely. */
  scripted?: string;
  /**
   * Where a sequence that needs checkpoints keeps them (checkpoints.ts): `turn` counts the person's
   * messages; `probe` is this prompt with other text in the message that opens the turn (where the
   * request carries one): where the two depart is where an edit or undo of that message would.
   * `next` is the conversation continued by a finished reply and another message: where it departs
   * from this prompt (a template that writes the generation prompt otherwise than a finished turn,
   * Qwen3.5's `<think>`) is where the next request will, so the prompt's checkpoint is taken there.
   */
  checkpoints?: { keeper: SequenceCheckpoints; turn: number; probe?: LlamaText; next?: LlamaText };
}

export interface RequestResult {
  /** The exact generated text (special tokens as their text). */
  text: string;
  stoppedBy: 'end' | 'call' | 'trigger' | 'limit' | 'stopped';
  promptTokens: number;
  reusedTokens: number;
  newTokens: number;
  outputTokens: number;
  /** Tokens the sequence held before the request. Reuse short of them is a break. */
  cachedBefore: number;
  firstDiff: number;
  /** Where the cut back to the first difference started from, on a sequence that keeps checkpoints. */
  checkpoint?: CheckpointUse;
  /** Whether earlier text was rendered otherwise than it was evaluated (see splice.ts). */
  rewritten?: boolean;
  prefillMs: number;
  generationMs: number;
}

/**
 * One request: the prompt's tokens are compared with what the sequence already holds, the
 * differing tail is erased, only the new tokens are evaluated, and the reply is generated token
 * by token. The figures are measured, not estimated: reuse is the first differing token index.
 */
export async function runRequest(o: RequestOptions): Promise<RequestResult> {
  const evaluated = evaluatedText(o.sequence, o.model);
  const prompt = promptTokens(o.prompt, o.model, evaluated);
  const cachedBefore = o.sequence.nextTokenIndex;
  const { firstDiff } = prompt;
  // At least one token is evaluated, so there are logits to sample the first reply token from.
  const start = Math.min(firstDiff, prompt.length - 1);
  const input = prompt.from(start);
  const departs = (probe?: LlamaText) => (probe && o.checkpoints?.keeper.needed
    ? departure(prompt, promptTokens(probe, o.model, evaluated), start) : undefined);
  const cuts = { turn: departs(o.checkpoints?.probe), prompt: departs(o.checkpoints?.next) };
  evaluated.changing();
  const began = performance.now();
  // A sequence that cannot cut its state back re-reads, inside the erase, from the nearest checkpoint (or token 0).
  // It cannot where the cut starts at or before the first position its state still holds (a window's
  // start; a recurrent state's last position), as node-llama-cpp decides.
  const meter = o.sequence.tokenMeter.usedInputTokens;
  const restores = start < cachedBefore && start <= o.sequence.stateCellsStartIndex;
  if (start < cachedBefore) await o.sequence.eraseContextTokenRanges([{ start, end: cachedBefore }]);
  const reread = o.sequence.tokenMeter.usedInputTokens - meter;
  const keeper = o.checkpoints?.keeper;
  const checkpoint = keeper?.needed && restores ? checkpointUse(keeper, start, reread) : undefined;
  const last = await evaluateWithCheckpoints(o, start, input, cuts);

  // A predictor drafts from the whole prompt (the session's own text), as LlamaChat would give it (speculation.ts).
  o.sequence.tokenPredictor?.updateInputTokens(prompt.from(0));
  const script = o.scripted === undefined ? undefined : o.model.tokenize(o.scripted, true);
  const reply = new ReplyReader(o);
  let firstTokenAt: number | undefined;
  let stoppedBy: RequestResult['stoppedBy'] = 'limit';
  const iterator = o.sequence.evaluate(last, { temperature: script ? 0 : o.temperature, yieldEogToken: true });
  let forced: Token | undefined;
  for (;;) {
    const next = await iterator.next(forced);
    if (next.done) break;
    firstTokenAt ??= performance.now();
    // A scripted reply is forced token by token (teacher forcing): the sampled token is replaced,
    // and where the script ends the reply ends, as if the model had sampled its end token.
    if (script && reply.length === script.length) {
      stoppedBy = 'end';
      break;
    }
    const token = script ? script[reply.length] : next.value;
    forced = script ? token : undefined;
    const stop = reply.add(token);
    if (stop) {
      stoppedBy = stop;
      break;
    }
    if (o.signal?.aborted) {
      stoppedBy = 'stopped';
      break;
    }
    if (reply.length >= o.maxTokens) break;
  }
  await iterator.return();
  // Drafts the model confirmed that the reply never reached stay in the cache past its last token:
  // dropped, so the cache holds exactly the tokens the sequence reports (a saved state, the next splice).
  if (o.sequence.tokenPredictor) await o.sequence.eraseContextTokenRanges([{ start: o.sequence.nextTokenIndex, end: o.sequence.contextSize }]);
  const ended = performance.now();
  // The sequence now holds the input, then the reply's tokens up to the last one fed back (the one
  // that ended the reply was not evaluated); a request that failed midway records nothing, and the next `sync` reads what is there.
  evaluated.record(start, input.concat(reply.tokens).slice(0, o.sequence.nextTokenIndex - start));
  const text = reply.finish();
  return {
    text,
    stoppedBy,
    promptTokens: prompt.length,
    reusedTokens: start - reread,
    newTokens: prompt.length - start + reread,
    outputTokens: reply.length,
    cachedBefore,
    firstDiff,
    ...(checkpoint && { checkpoint }),
    rewritten: prompt.rewritten,
    prefillMs: (firstTokenAt ?? ended) - began,
    generationMs: ended - (firstTokenAt ?? ended),
  };
}

/**
 * Evaluates the prompt's input but its last token, taking checkpoints on the way where the sequence
 * keeps them (checkpoints.ts): before the text of the message that opens the turn (`cuts.turn`), and
 * at the prompt's end or, where the next request departs before it, there (`cuts.prompt`). Returns
 * what is left for generation to evaluate: the last token, or the whole input where no checkpoint is
 * kept (then nothing is split).
 */
async function evaluateWithCheckpoints(o: RequestOptions, start: number, input: Token[], cuts: { turn?: number; prompt?: number }): Promise<Token[]> {
  const c = o.checkpoints;
  if (!c?.keeper.needed || input.length < 2) return input;
  const end = input.length - 1;
  const stops: Array<[number, 'turn' | 'prompt']> = [[Math.min(end, (cuts.prompt ?? Infinity) - start), 'prompt']];
  const turnAt = cuts.turn === undefined ? -1 : cuts.turn - start;
  if (turnAt > 0 && turnAt < end) stops.push([turnAt, 'turn']);
  let done = 0;
  for (const [at, kind] of stops.sort((a, b) => a[0] - b[0])) {
    if (at > done) await o.sequence.evaluateWithoutGeneratingNewTokens(input.slice(done, at));
    done = Math.max(done, at);
    await c.keeper.take(kind, c.turn);
  }
  if (end > done) await o.sequence.evaluateWithoutGeneratingNewTokens(input.slice(done, end));
  return input.slice(end);
}

/** The first token index from `start` on where two renders of a prompt differ. */
function departure(a: PromptTokens, b: PromptTokens, start: number): number {
  const x = a.from(start);
  const y = b.from(start);
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  return start + i;
}

/** Where a restore for a cut back to `start` resumed from: the checkpoint node-llama-cpp restored, or none (and why). */
function checkpointUse(keeper: SequenceCheckpoints, start: number, reread: number): CheckpointUse {
  const restoredAt = start - reread - 1;
  return restoredAt < 0 ? { restoredAt: null, reread, why: keeper.missing(start - 1) } : { restoredAt, reread };
}

/** The text of what each sequence evaluated, kept from request to request (splice.ts). */
const evaluatedTexts = new WeakMap<LlamaContextSequence, EvaluatedText>();

/** What `sequence` holds now, with its text (splice.ts `EvaluatedText`). */
export function evaluatedText(sequence: LlamaContextSequence, model: LlamaModel): EvaluatedText {
  let text = evaluatedTexts.get(sequence);
  if (!text) evaluatedTexts.set(sequence, text = new EvaluatedText());
  text.sync(model, sequence);
  return text;
}

/** Says that something besides a request is about to change `sequence` (a state loaded into it): the next request compares it. */
export function sequenceChanging(sequence: LlamaContextSequence): void {
  evaluatedTexts.get(sequence)?.changing();
}

/**
 * The reply of a request, read token by token as it is generated: what ends it (an end token, a
 * stop trigger, or words after its calls), and the words streamed to the person. Each token costs
 * the same however long the reply already is (replyStream.ts).
 *
 * After a complete call the model may write another where the template writes calls together
 * (several calls in one reply, run together where they can be): the reply goes on while what follows the call is blank or may become a call, and
 * ends at an end token or at the first words, which are cut (a model that writes on after its call
 * is inventing the result).
 */
/** How much of what follows a call is read for words before it is taken for the next call's beginning. */
const AFTER_CALL_READ = 64;

export class ReplyReader {
  private readonly stream: ReplyStream;
  private readonly triggers: string[];
  private streamed = 0;
  private cut = 0;
  /** Set once the format says no later text changes the words: each token then costs the same however long the reply. */
  private wordsSettled = false;
  /**
   * After a complete call: where its text ends, the calls so far, and whether a next call has
   * begun (the text since is then left to the stream until that call completes).
   */
  private afterCall?: { end: number; calls: number; calling: boolean };

  constructor(private readonly o: Pick<RequestOptions, 'model' | 'format' | 'callEnds' | 'callsTogether' | 'stopTriggers' | 'continueOn' | 'onText'>) {
    this.stream = new ReplyStream(o.model, o.format, o.callEnds);
    this.triggers = o.stopTriggers.map((t) => t.toString()).filter((t) => t !== '');
  }

  /** Tokens of the reply so far. */
  get length(): number {
    return this.stream.tokens.length;
  }

  get tokens(): readonly Token[] {
    return this.stream.tokens;
  }

  /** The next generated token; what ends the reply there, if it ends. */
  add(token: Token): 'end' | 'call' | 'trigger' | undefined {
    const { model, format } = this.o;
    // Harmony's `<|end|>` closes one message, and the model goes on with the next (node-llama-cpp re-renders there too).
    if (model.isEogToken(token) && !this.o.continueOn.includes(model.detokenize([token], true))) {
      if (this.afterCall && !this.afterCall.calling) return this.endAfterCall();
      // An end-of-generation token ends the reply, or completes a call (Llama 3.x `<|eom_id|>`, Harmony `<|call|>`).
      const text = this.stream.final();
      const withEnd = this.stream.textWith(token);
      // Stop triggers come first: where the end token completes a trigger that began in the text
      // (Command R's `<|END_RESPONSE|><|END_OF_TURN_TOKEN|>`), the trigger's start is no part of the answer.
      const start = triggerStart(withEnd, withEnd.length - model.detokenize([token], true).length, this.o.stopTriggers);
      if (start !== undefined) {
        this.cut = text.length - start;
        return 'trigger';
      }
      if (format.read(withEnd).calls.length > format.read(text).calls.length) {
        this.stream.tokens.push(token);
        return 'call';
      }
      return 'end';
    }
    if (this.stream.push(token)) {
      if (!this.o.callsTogether) return 'call';
      const text = this.stream.text;
      const calls = this.o.format.read(text).calls.length;
      if (calls > (this.afterCall?.calls ?? 0)) {
        this.afterCall = { end: text.length, calls, calling: false };
        return undefined;
      }
    }
    const trigger = this.triggers.find((t) => this.stream.endsWith(t));
    if (trigger) {
      this.cut = trigger.length;
      return 'trigger';
    }
    if (this.afterCall && !this.afterCall.calling) return this.readAfterCall();
    if (!this.wordsSettled) this.show(this.stream.text, false);
    return undefined;
  }

  /** What follows a complete call: blank, or what may become a call, goes on; words end the reply. */
  private readAfterCall(): 'call' | undefined {
    const after = this.afterCall!;
    const text = this.stream.text;
    const since = text.slice(after.end);
    if (since.trim() === '') return undefined;
    // Read as a reply of its own, what follows shows words unless it is (or may become) a call.
    if (this.o.format.visible(since.trimStart(), false).trim() !== '') return this.endAfterCall();
    // Long enough to be a call's beginning and not words: the stream reads it from here.
    if (since.length >= AFTER_CALL_READ) after.calling = true;
    return undefined;
  }

  /** Ends the reply at its last complete call, what followed cut. */
  private endAfterCall(): 'call' {
    this.cut = this.stream.text.length - this.afterCall!.end;
    return 'call';
  }

  /** The reply's exact text (a stop trigger taken off), once it has ended. */
  finish(): string {
    const whole = this.stream.final();
    const text = this.cut > 0 ? whole.slice(0, -this.cut) : whole;
    this.show(text, true);
    return text;
  }

  /** Streams the words not yet shown; a character still being written (U+FFFD at the end, for now) waits for its last token. */
  private show(text: string, final: boolean): void {
    const words = this.o.format.visible(text, final);
    let end = words.length;
    if (!final) while (end > 0 && words.charCodeAt(end - 1) === 0xfffd) end--;
    const visible = end === words.length ? words : words.slice(0, end);
    if (visible.length > this.streamed) this.o.onText?.(visible.slice(this.streamed));
    this.streamed = Math.max(this.streamed, visible.length);
    if (!final) this.wordsSettled = this.o.format.wordsSettled(text);
  }
}

/**
 * Where a stop trigger begins in `text`, when the text ends with the trigger or with its beginning
 * and that match reaches back before `endAt` (into generated text, not only the end token itself).
 */
export function triggerStart(text: string, endAt: number, triggers: readonly LlamaText[]): number | undefined {
  let best: number | undefined;
  for (const trigger of triggers.map((t) => t.toString())) {
    for (let n = Math.min(trigger.length, text.length); n > text.length - endAt; n--) {
      if (trigger.startsWith(text.slice(-n))) {
        best = Math.min(best ?? Infinity, text.length - n);
        break;
      }
    }
  }
  return best;
}
