/**
 * What a request's record says about the cache (types and their values only, importing nothing):
 * why reuse fell short, and what the engine recorded itself. The engine reports them and the session
 * stores them, so both read them from here.
 */

/** Why a request reused less of the KV cache than the previous request left there. */
export const BREAK_CAUSES = [
  'compaction', 'model switched', 'undo', 'rewind', 'regenerate', 'resumed without cache',
  'template re-rendered earlier text', 'reply re-tokenized', 'chat reply results not carried', 'context full',
  'server evicted the prefix', 'saved state unusable', 'turn deleted', 'something else',
] as const;
export type BreakCause = (typeof BREAK_CAUSES)[number];

/**
 * What an engine records beside a request's figures, kept as it is (one JSON value in the store, one
 * field in a session file) and shown in the cache view. Each engine declares its own fields from its
 * own folder, by adding them to this interface (TypeScript's declaration merging:
 * `declare module '../core/engine/breaks.js' { interface EngineRecord { name?: Shape } }`), so an
 * engine's record needs no edit to the core or the store. main/remote adds `server`, main/llm `checkpoint`;
 * both engines record `speculation`, declared here.
 */
export interface EngineRecord {
  /** The tokens drafted for the request and what the model made of them, where the engine speculates. */
  speculation?: SpeculationFigures;
}

/** What one request's drafts came to: the session's own (main/llm/speculation.ts) or a server's. */
export interface SpeculationFigures {
  /** Drafted tokens the model confirmed. */
  accepted: number;
  /** Drafted tokens the model refuted (each then erased from the cache). */
  refuted: number;
  /** Why this session drafts no more, from the request that decided it on. */
  off?: string;
}
