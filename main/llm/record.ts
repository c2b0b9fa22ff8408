/**
 * What the in-process engine records beside a request's figures (core/engine/breaks.ts EngineRecord):
 * on a model whose state cannot be cut back to a prefix (hybrid, recurrent, sliding window without
 * its full cache), where the request resumed after departing from what the cache held. (What its
 * drafts came to, `speculation`, both engines record: core/engine/breaks.ts.)
 */

/**
 * The checkpoint restored (the state after token `restoredAt`) and the tokens re-read from it up to
 * the departure, or none (`restoredAt` null: re-read from token 0) and why none was kept.
 */
export interface CheckpointUse {
  restoredAt: number | null;
  reread: number;
  why?: string;
}

declare module '../core/engine/breaks.js' {
  interface EngineRecord {
    /** Where a cut on a hybrid or sliding-window model resumed from (main/llm). */
    checkpoint?: CheckpointUse;
  }
}
