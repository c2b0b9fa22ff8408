// Types only: the formats (toolCalls.ts, harmony.ts) implement ReplyFormat and chooseFormat.ts
// picks one, so no format imports another through this file.
import type { ChatModelFunctions, ChatModelResponse, LlamaText } from 'node-llama-cpp';

export type ResponseItem = ChatModelResponse['response'][number];

/** A tool call found in generated text, with the exact text it was generated as. */
export interface ParsedCall {
  name: string;
  /** The arguments, or the reason they could not be read (malformed JSON from the model). */
  args: unknown;
  problem?: string;
  /** The call's exact text, from its prefix to its suffix. */
  raw: string;
  start: number;
  end: number;
}

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
  /** The reply read; `functions` (the request's tools) type arguments a template writes as bare text (taggedCalls.ts). */
  read(text: string, functions?: ChatModelFunctions): ReadReply;
  /** The words written so far, while generating: never a call, nor what may become one. */
  visible(text: string, final: boolean): string;
  /** Whether nothing written after `text` can change its visible words (a call has begun): streaming stops reading them. */
  wordsSettled(text: string): boolean;
  /** A stored reply's text part as the wrapper's response items (its calls follow them). */
  items(reply: { text: string; raw?: string }): ResponseItem[];
  /** A call's exact text as the prompt carries it, special tokens marked as such. */
  callText(raw: string): LlamaText;
}
