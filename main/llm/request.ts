import type { LlamaContextSequence, LlamaModel, LlamaText, Token } from 'node-llama-cpp';
import { promptTokens } from './splice.js';
import type { ReplyFormat } from './replyFormat.js';

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
  const { tokens, rewritten } = promptTokens(o.prompt, o.model, o.sequence.contextTokens);
  const cachedBefore = o.sequence.nextTokenIndex;
  const firstDiff = o.sequence.compareContextTokens(tokens).firstDifferentIndex;
  // At least one token is evaluated, so there are logits to sample the first reply token from.
  const start = Math.min(firstDiff, tokens.length - 1);
  if (start < cachedBefore) await o.sequence.eraseContextTokenRanges([{ start, end: cachedBefore }]);

  const script = o.scripted === undefined ? undefined : o.model.tokenize(o.scripted, true);
  const generated: Token[] = [];
  const began = performance.now();
  let firstTokenAt: number | undefined;
  let text = '';
  let stoppedBy: RequestResult['stoppedBy'] = 'limit';
  const iterator = o.sequence.evaluate(tokens.slice(start), { temperature: script ? 0 : o.temperature, yieldEogToken: true });
  let streamed = 0;
  const stream = (final: boolean) => {
    const visible = o.format.visible(text, final);
    if (visible.length > streamed) o.onText?.(visible.slice(streamed));
    streamed = Math.max(streamed, visible.length);
  };
  /** An end-of-generation token ends the reply, or completes a call (Llama 3.x `<|eom_id|>`, Harmony `<|call|>`). */
  const end = (token: Token) => {
    const withEnd = o.model.detokenize([...generated, token], true);
    // Stop triggers come first: where the end token completes a trigger that began in the text
    // (Command R's `<|END_RESPONSE|><|END_OF_TURN_TOKEN|>`), the trigger's start is no part of the answer.
    const cut = triggerStart(withEnd, withEnd.length - o.model.detokenize([token], true).length, o.stopTriggers);
    if (cut !== undefined) {
      text = withEnd.slice(0, cut);
      return 'trigger' as const;
    }
    if (o.format.read(withEnd).calls.length > o.format.read(text).calls.length) {
      generated.push(token);
      text = withEnd;
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
    generated.push(token);
    text = o.model.detokenize(generated, true);
    if (o.format.read(text).calls.length > 0) {
      stoppedBy = 'call';
      break;
    }
    const trigger = o.stopTriggers.find((t) => t.toString() !== '' && text.endsWith(t.toString()));
    if (trigger) {
      text = text.slice(0, -trigger.toString().length);
      stoppedBy = 'trigger';
      break;
    }
    stream(false);
    if (o.signal?.aborted) {
      stoppedBy = 'stopped';
      break;
    }
    if (generated.length >= o.maxTokens) break;
  }
  await iterator.return();
  stream(true);
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
