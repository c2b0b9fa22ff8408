/**
 * Checkpoints of a sequence whose state cannot be cut back to a prefix (a hybrid or recurrent model,
 * a sliding-window model without its full cache: architecture.ts), taken where Keel knows the next
 * request can depart from this one and nowhere else:
 *
 * - `turn`: just before the text of the person's message that opens a turn. An undo, a rewind, an
 *   edit and resend, or a new message after an undo departs there. Kept while the budget allows,
 *   the oldest dropped first.
 * - `prompt`: the end of each prompt, one token before generation starts. A regenerate departs there,
 *   and so does a template that renders the reply otherwise once it is no longer the last (Qwen3.5
 *   drops a reply's reasoning when the next message comes). Kept for the current and the previous
 *   turn only: no history action reaches the prompt ends of older turns, so they go first.
 *
 * node-llama-cpp (3.21.1, pinned) keeps the checkpoints, prunes them to `maxMemory` oldest first and
 * restores the nearest one when tokens after it are erased. It names its checkpoint groups only
 * internally (`_takeNamedCheckpoint`, `_checkpoints`); this file is the only place that reaches them.
 */
import type { LlamaContextSequence } from 'node-llama-cpp';

export type CheckpointKind = 'turn' | 'prompt';

/** One kept checkpoint: the state after the token at `position`. */
export interface KeptCheckpoint {
  kind: CheckpointKind;
  turn: number;
  position: number;
  bytes: number;
}

interface Internal {
  _takeNamedCheckpoint(name: string, max: number): Promise<void>;
  _checkpoints: { _checkpoints: [string | undefined, { maxPos: number; minPos: number; size: number; dispose(): void }][]; _pruneOldCheckpoints(name: string | undefined, count: number): void };
}

/** Checkpoints of one kind and turn at most: more than any turn has requests. */
const MAX_PER_NAME = 10_000;

/** The options node-llama-cpp's getSequence takes: no checkpoints at intervals (Keel places its own), pruned to `budget`. */
export function sequenceCheckpointOptions(budget: number) {
  return { max: 4, interval: false as const, maxMemory: budget };
}

export class SequenceCheckpoints {
  /** What a cut that found no checkpoint was owed to: the budget dropped older ones, or none were taken since the state was read. */
  private dropped = 0;
  private since: 'start' | 'restore' = 'start';
  /** The most memory the checkpoints held at once, and the largest one: figures for benchmarks and doctor. */
  peak = { memory: 0, checkpoint: 0 };

  constructor(private readonly sequence: LlamaContextSequence, readonly budget: number) {}

  /** Whether this sequence keeps checkpoints at all (node-llama-cpp's verdict from the model's insights and the context). */
  get needed(): boolean {
    return this.sequence.needsCheckpoints;
  }

  /** Takes a checkpoint of the sequence as it is now (after its last evaluated token); older prompt ends go. */
  async take(kind: CheckpointKind, turn: number): Promise<void> {
    if (!this.needed || this.sequence.nextTokenIndex === 0) return;
    const before = this.internal._checkpoints._checkpoints.map(([, c]) => c);
    await this.internal._takeNamedCheckpoint(`${kind}:${turn}`, MAX_PER_NAME);
    const after = new Set(this.internal._checkpoints._checkpoints.map(([, c]) => c));
    this.dropped += before.filter((c) => !after.has(c)).length; // pruned to the budget, oldest first
    for (const stale of new Set(this.list().filter((c) => c.kind === 'prompt' && c.turn < turn - 1).map((c) => `prompt:${c.turn}`))) {
      this.internal._checkpoints._pruneOldCheckpoints(stale, MAX_PER_NAME);
    }
    this.peak = { memory: Math.max(this.peak.memory, this.memory), checkpoint: Math.max(this.peak.checkpoint, ...this.list().map((c) => c.bytes)) };
  }

  /** The checkpoints kept now, in position order. */
  list(): KeptCheckpoint[] {
    return this.internal._checkpoints._checkpoints.map(([name, c]) => {
      const [kind, turn] = (name ?? 'prompt:0').split(':');
      return { kind: kind === 'turn' ? 'turn' : 'prompt', turn: Number(turn) || 0, position: c.maxPos, bytes: c.size };
    });
  }

  get memory(): number {
    return this.sequence.checkpointsMemoryUsage;
  }

  /** The sequence's state was replaced (a saved state read into it): nothing taken before applies. */
  async reset(why: 'restore'): Promise<void> {
    await this.sequence.clearHistory();
    this.since = why;
    this.dropped = 0;
  }

  /**
   * Why a cut back to `index` could not start from a checkpoint: in words, for the cache view.
   * Called only when it could not.
   */
  missing(index: number): string {
    const kept = this.list();
    if (kept.length > 0 && kept[0]!.position > index) {
      return this.dropped > 0
        ? `older checkpoints were dropped to stay within the ${mb(this.budget)} checkpoint budget; the oldest kept is at token ${kept[0]!.position}`
        : `the first checkpoint kept is at token ${kept[0]!.position}, after the departure at token ${index}`;
    }
    if (this.since === 'restore') return 'the state read from disk carries no checkpoint before that point';
    return this.dropped > 0 ? `checkpoints were dropped to stay within the ${mb(this.budget)} checkpoint budget` : 'no checkpoint was taken before that point';
  }

  private get internal(): Internal {
    return this.sequence as unknown as Internal;
  }
}

const mb = (bytes: number) => `${Math.round(bytes / 1e6)} MB`;
