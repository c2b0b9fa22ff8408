import { TokenBias, type LlamaContextSequence, type LlamaModel, type LlamaText, type Token } from 'node-llama-cpp';
import { promptTokens } from './splice.js';
import { callStart, parseCalls, type CallSyntax } from './toolCalls.js';

/** Scripted replies (teacher forcing): each request's reply is given as text and sampled exactly. */
export interface Script {
  next(): string | undefined;
}

export interface RequestOptions {
  sequence: LlamaContextSequence;
  model: LlamaModel;
  prompt: LlamaText;
  stopTriggers: LlamaText[];
  syntax: CallSyntax;
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
  const iterator = o.sequence.evaluate(tokens.slice(start), {
    temperature: script ? 0 : o.temperature,
    tokenBias: script ? () => forced(o.model, script[generated.length]) : undefined,
    yieldEogToken: true,
  });
  /**
   * Streams the reply's words, not its calls: text from a call's start on is held back, and so is
   * a tail that may be the start of a call prefix, until it turns out not to be.
   */
  let streamed = 0;
  const stream = (final: boolean) => {
    const call = callStart(text, o.syntax);
    const visible = call >= 0 ? call : final ? text.length : text.length - partialPrefix(text, o.syntax.prefix);
    if (visible > streamed) o.onText?.(text.slice(streamed, visible));
    streamed = Math.max(streamed, visible);
  };
  /** An end-of-generation token ends the reply, or completes a call (Llama 3.x `<|eom_id|>`). */
  const end = (token: Token) => {
    const withEnd = o.model.detokenize([...generated, token], true);
    if (parseCalls(withEnd, o.syntax).calls.length > parseCalls(text, o.syntax).calls.length) {
      generated.push(token);
      text = withEnd;
      return 'call' as const;
    }
    return 'end' as const;
  };
  for await (const token of iterator) {
    firstTokenAt ??= performance.now();
    if (o.model.isEogToken(token)) {
      stoppedBy = end(token);
      break;
    }
    generated.push(token);
    text = o.model.detokenize(generated, true);
    if (callStart(text, o.syntax) >= 0 && parseCalls(text, o.syntax).calls.length > 0) {
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
    // A scripted reply ends where its text ends, or at a scripted end token, as if the model
    // had sampled it (TokenBias cannot force end-of-generation tokens).
    if (script && (generated.length === script.length || o.model.isEogToken(script[generated.length]))) {
      stoppedBy = generated.length === script.length ? 'end' : end(script[generated.length]);
      break;
    }
  }
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

/** A bias that makes greedy sampling pick exactly this token. */
function forced(model: LlamaModel, token: Token | undefined): TokenBias {
  const bias = new TokenBias(model.tokenizer);
  if (token !== undefined) bias.set(token, { logit: 1e9 });
  return bias;
}

/** How many characters at the end of `text` could be the beginning of `prefix`. */
function partialPrefix(text: string, prefix: string): number {
  for (let n = Math.min(prefix.length - 1, text.length); n > 0; n--) if (prefix.startsWith(text.slice(-n))) return n;
  return 0;
}
