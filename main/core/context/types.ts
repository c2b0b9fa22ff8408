/**
 * The context view (issue 36): the next request's prompt tokens by part of the conversation, each
 * part's tokens cached or new, summing exactly to the prompt's tokens. Types only: the renderer and
 * the contract read them.
 */

/** What a part of the prompt is. */
export const CONTEXT_PART_KINDS = [
  'system', 'tools', 'summary', 'message', 'notes', 'task', 'next', 'reply', 'call', 'result',
] as const;
export type ContextPartKind = (typeof CONTEXT_PART_KINDS)[number];

export interface ContextPart {
  /** Says what it is, in words: "turn 3 result #0004 (read)". */
  label: string;
  kind: ContextPartKind;
  /** The turn it belongs to, as the history numbers turns; absent for the system prompt, tools and summary. */
  turn?: number;
  /** The result's number (a call's, for the call that produced it). */
  result?: number;
  /** The tool a call or result is of. */
  tool?: string;
  /** The prompt's tokens this part takes: its own text and the template's text just before it. */
  tokens: number;
  /** Of those, the tokens the request would take from the cache. */
  cachedTokens: number;
  /** Of those, the tokens the request would read anew. */
  newTokens: number;
  /**
   * The prompt's tokens after this part: were it removed or changed, the cache would hold nothing
   * past its start, so each of them would be read again (the price of a cache break there).
   */
  tokensRereadIfGone: number;
  /** Whether its own text was found in the prompt (or it has none); where not (a template that rewrites it), it holds the template's text between its neighbours. */
  located: boolean;
}

export interface ContextView {
  /** What the request is: the one the next message sends (its words unknown yet), or another. */
  request: 'next message' | 'conversation';
  /** The prompt's length in tokens: the parts' tokens sum to it. */
  promptTokens: number;
  cachedTokens: number;
  newTokens: number;
  /** The context the requests run in, in tokens. */
  contextSize: number;
  /** False where the engine estimates tokens (a server that cannot count them). */
  exact: boolean;
  /** In the order the prompt holds them. */
  parts: ContextPart[];
}
