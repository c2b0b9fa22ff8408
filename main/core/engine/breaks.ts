/**
 * What a request's record says about the cache (types and their values only, importing nothing):
 * why reuse fell short, and a server engine's own figures. The engine reports them and the session
 * stores them, so both read them from here.
 */

/** Why a request reused less of the KV cache than the previous request left there. */
export const BREAK_CAUSES = [
  'compaction', 'model switched', 'undo', 'rewind', 'regenerate', 'resumed without cache',
  'template re-rendered earlier text', 'reply re-tokenized', 'chat reply results not carried', 'context full',
  'server evicted the prefix', 'saved state unusable', 'turn deleted', 'something else',
] as const;
export type BreakCause = (typeof BREAK_CAUSES)[number];

/** What a server engine records beside a request's figures. */
export interface ServerRequestRecord {
  /** The server's base URL. */
  url: string;
  /** The prompt tokens the server reports it took from its cache; null: it did not report them. */
  cachedTokens: number | null;
  /**
   * The first message sent before that this request sent otherwise (-1: the tools array), and the
   * byte in that message's JSON where it differs; null: every earlier message went out the same.
   */
  change: { message: number; byte: number } | null;
  /** The llama-server slot the request ran in. */
  slot?: number;
}

/**
 * Where a request on a model whose state cannot be cut back to a prefix (hybrid, recurrent, sliding
 * window without its full cache) resumed after departing from what the cache held: the checkpoint
 * restored (the state after token `restoredAt`) and the tokens re-read from it up to the departure,
 * or none (`restoredAt` null: re-read from token 0) and why none was kept.
 */
export interface CheckpointUse {
  restoredAt: number | null;
  reread: number;
  why?: string;
}
