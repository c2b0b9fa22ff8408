import { compactionText } from '../hygiene/compactionTable.js';
import { SessionError } from '../state/deps.js';
import type { KeptPrompt } from '../state/prompt.js';
import type { SessionRecord } from '../state/record.js';
import type { Turns } from '../state/turns.js';
import type { SessionStore } from '../state/types.js';

/** Compaction (spec §7): the model's summary and the table of the reads it covers replace the history. */
export class Compaction {
  constructor(
    private readonly store: SessionStore,
    private readonly record: SessionRecord,
    private readonly turns: Turns,
    private readonly prompt: KeptPrompt,
    private readonly now: () => Date,
  ) {}

  /**
   * The model's reply to the compaction request becomes the summary: its words, the text before
   * any tool call (which is not run), as the engine read them in the model family's own format
   * (the core knows no call syntax). An empty summary fails and changes nothing. Otherwise the
   * summary and the table of the reads it covers replace the history, the system prompt is
   * rebuilt, the dedupe table is emptied, and ids go on. Returns the text the history now starts with.
   */
  compact(words: string): string {
    const summary = words.trim();
    if (summary === '') throw new SessionError('Compaction failed: the summary is empty; the session is unchanged.');
    this.turns.end();
    const reads = this.turns.history().flatMap((t) => t.reads);
    const text = compactionText(summary, reads);
    const row = this.record.row;
    const epoch = row.epoch + 1;
    this.store.insertCompaction({ sessionId: row.id, epoch, summary, text, createdAt: this.now().toISOString() });
    this.prompt.rebuild({ epoch });
    return text;
  }

  /** The summary and table the history starts with since the last compaction, if any. */
  history(): string | undefined {
    const row = this.record.row;
    return row.epoch === 0 ? undefined : this.store.lastCompaction(row.id)?.text;
  }
}
