import { HarmonyChatWrapper, type ChatModelResponse, type ChatWrapper, type LlamaText } from 'node-llama-cpp';
import { harmonyFormat } from './harmony.js';
import { thoughtMarkers } from './thoughts.js';
import { plainFormat, type CallSyntax, type ParsedCall } from './toolCalls.js';

export type ResponseItem = ChatModelResponse['response'][number];

/** Generated text, read: what the person reads, the exact text before the calls, and the calls. */
export interface ReadReply {
  /** The words before the first call, as the person reads them. */
  words: string;
  /** The exact generated text before the first call, where it is more than the words. */
  raw?: string;
  calls: ParsedCall[];
  /** False while a call is still being written. */
  complete: boolean;
}

/**
 * How a model family writes a reply, and how a stored reply goes back to its wrapper. Most
 * families write words (and reasoning, thoughts.ts) then calls in the wrapper's call syntax
 * (toolCalls.ts); gpt-oss writes channels of messages (harmony.ts).
 */
export interface ReplyFormat {
  read(text: string): ReadReply;
  /** The words written so far, while generating: never a call, nor what may become one. */
  visible(text: string, final: boolean): string;
  /** A stored reply's text part as the wrapper's response items (its calls follow them). */
  items(reply: { text: string; raw?: string }): ResponseItem[];
  /** A call's exact text as the prompt carries it, special tokens marked as such. */
  callText(raw: string): LlamaText;
}

export function replyFormat(wrapper: ChatWrapper, syntax: CallSyntax): ReplyFormat {
  return wrapper instanceof HarmonyChatWrapper ? harmonyFormat : plainFormat(syntax, thoughtMarkers(wrapper));
}
