import type { LlamaContextSequence, LlamaModel, LlamaText, Token } from 'node-llama-cpp';
import { EvaluatedText, promptTokens } from './splice.js';
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
  maxTokens: number;
  temperature: number;
  signal?: AbortSignal;
  onText?: (delta: string) => void;
  /** The reply to force, as text (special tokens parsed); undefined samples freely. */
  scripted?: string;
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
  const { tokens, rewritten } = promptTokens(o.prompt, o.model, o.sequence.contextTokens, evaluatedText(o.sequence));
  const cachedBefore = o.sequence.nextTokenIndex;
  const firstDiff = o.sequence.compareContextTokens(tokens).firstDifferentIndex;
  // At least one token is evaluated, so there are logits to sample the first reply token from.
  const start = Math.min(firstDiff, tokens.length - 1);
  if (start < cachedBefore) await o.sequence.eraseContextTokenRanges([{ start, end: cachedBefore }]);

  const script = o.scripted === undefined ? undefined : o.model.tokenize(o.scripted, true);
  const reply = new ReplyStream(o.model, o.format, o.callEnds);
  const generated = reply.tokens;
  const triggers = o.stopTriggers.map((t) => t.toString()).filter((t) => t !== '');
  const began = performance.now();
  let firstTokenAt: number | undefined;
  let stoppedBy: RequestResult['stoppedBy'] = 'limit';
  let cut = 0;
  const iterator = o.sequence.evaluate(tokens.slice(start), { temperature: script ? 0 : o.temperature, yieldEogToken: true });
  let streamed = 0;
  const stream = (text: string, final: boolean) => {
    const visible = o.format.visible(text, final);
    if (visible.length > streamed) o.onText?.(visible.slice(streamed));
    streamed = Math.max(streamed, visible.length);
  };
  /** An end-of-generation token ends the reply, or completes a call (Llama 3.x `<|eom_id|>`, Harmony `<|call|>`). */
  const end = (token: Token) => {
    const text = reply.final();
    if (o.format.read(reply.textWith(token)).calls.length > o.format.read(text).calls.length) {
      generated.push(token);
      return 'call' as const;
    }
    return 'end' as const;
  };
  /** Harmony's `<|end|>` closes one message, and the model goes on with the next (node-llama-cpp re-renders there too). */
  const continues = (token: Token) => o.continueOn.includes(o.model.detokenize([token], true));
  let forced: Token | undefined;
  for (;;) {
    const next = await iterator.next(forced);
    if (next.done) break;
    firstTokenAt ??= performance.now();
    // A scripted reply is forced token by token (teacher forcing): the sampled token is replaced,
    // and where the script ends the reply ends, as if the model had sampled its end token.
    if (script && generated.length === script.length) {
      stoppedBy = 'end';
      break;
    }
    const token = script ? script[generated.length] : next.value;
    forced = script ? token : undefined;
    if (o.model.isEogToken(token) && !continues(token)) {
      stoppedBy = end(token);
      break;
    }
    if (reply.push(token)) {
      stoppedBy = 'call';
      break;
    }
    const trigger = triggers.find((t) => reply.text.endsWith(t));
    if (trigger) {
      cut = trigger.length;
      stoppedBy = 'trigger';
      break;
    }
    stream(reply.text, false);
    if (o.signal?.aborted) {
      stoppedBy = 'stopped';
      break;
    }
    if (generated.length >= o.maxTokens) break;
  }
  await iterator.return();
  const whole = reply.final();
  const text = cut > 0 ? whole.slice(0, -cut) : whole;
  stream(text, true);
  const ended = performance.now();
  return {
    text,
    stoppedBy,
    promptTokens: tokens.length,
    reusedTokens: Math.min(firstDiff, tokens.length),
    newTokens: tokens.length - Math.min(firstDiff, tokens.length),
    outputTokens: generated.length,
    cachedBefore,
    firstDiff,
    rewritten,
    prefillMs: (firstTokenAt ?? ended) - began,
    generationMs: ended - (firstTokenAt ?? ended),
  };
}

/** The text of what each sequence evaluated, kept from request to request (splice.ts). */
const evaluated = new WeakMap<LlamaContextSequence, EvaluatedText>();

export function evaluatedText(sequence: LlamaContextSequence): EvaluatedText {
  let text = evaluated.get(sequence);
  if (!text) evaluated.set(sequence, text = new EvaluatedText());
  return text;
}
