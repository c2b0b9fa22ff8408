import type { Generation } from '../engine/types.js';
import type { LoopOptions } from './loopTypes.js';

/**
 * The compaction check's size of a turn's first request (issue 10): what the last request
 * measured — its prompt and its reply, in tokens — while the history is still the one it was
 * measured on, plus the person's message, counted once; with no second render of the whole
 * history (a full count, where the measure does not stand, renders the history with the message).
 * Short of the exact count by the few tokens the template puts around the reply and the message — the threshold leaves a quarter of the context for those (loop.json compact_at).
 * Anything else that changed the history since (a take-back, a compaction, a switch, results left
 * after a stop) makes it a full count.
 */
export class PromptSize {
  private measured?: { tokens: number; key: string; system: string };

  constructor(
    /** The loop's options: the same object, so an engine switch is seen here. */
    private readonly o: Pick<LoopOptions, 'session' | 'engine'>,
    /** The full count of the prompt a request would send with this message (a template may refuse one without). */
    private readonly fullCount: (words: string) => Promise<number>,
  ) {}

  /** A request was answered: its measure stands while the history is this one. A server that reports no prompt size leaves the next check to a full count. */
  answered(r: Generation): void {
    this.measured = r.usage.promptTokens > 0
      ? { tokens: r.usage.promptTokens + r.usage.outputTokens, key: this.historyKey(), system: this.o.session.systemPrompt }
      : undefined;
  }

  /** The history changed, or a message is on its way: the next check counts anew. */
  forget(): void {
    this.measured = undefined;
  }

  /** The size of the turn's first request once `words` are sent. */
  async next(words: string): Promise<number> {
    const m = this.measured;
    if (m && m.key === this.historyKey() && m.system === this.o.session.systemPrompt) return m.tokens + await this.o.engine.countTokens(words);
    return this.fullCount(words);
  }

  /** Which history a measure was taken on: the epoch, the engine, the last turn and its replies. */
  private historyKey(): string {
    const history = this.o.session.turns();
    const last = history.at(-1);
    return `${this.o.engine.id} ${this.o.session.epoch} ${history.length} ${last?.seq} ${last?.replies.length}`;
  }
}
