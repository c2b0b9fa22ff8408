/**
 * What the in-process engine records beside a request's figures (core/engine/breaks.ts EngineRecord):
 * on a model whose state cannot be cut back to a prefix (hybrid, recurrent, sliding window without
 * its full cache), where the request resumed after departing from what the cache held.
 * Where the session drafts tokens from its own text: how many of the request's drafts were accepted.
 */
import type { SpeculationFigures } from './speculation.js';

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
    /** The drafted tokens the model accepted and refuted, where the session speculates (speculation.ts). */
    speculation?: SpeculationFigures;
    /** Where a cut on a hybrid or sliding-window model resumed from (main/llm). */
    checkpoint?: CheckpointUse;
  }
}
