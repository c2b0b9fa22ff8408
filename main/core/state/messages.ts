import type { Hooks } from '../hooks/hooks.js';
import type { HookRun } from '../hooks/run.js';
import type { SessionDeps } from './deps.js';
import { localDate, messageNotes, messageWithNotes } from './notes.js';
import type { KeptPrompt } from './prompt.js';
import type { SessionRecord } from './record.js';
import type { Turns } from './turns.js';
import type { Mode, Note, Turn } from './types.js';

/** How a person's message is sent: on which date, after a switch to which mode. */
export interface MessageOptions {
  date?: string;
  mode?: Mode;
}

/**
 * The person's messages: each starts a turn (ending a reply still open) and carries the notes it
 * needs (spec §10.3, notes.ts), after the person's UserPromptSubmit hooks where they have some.
 */
export class Messages {
  constructor(
    private readonly deps: Pick<SessionDeps, 'now' | 'promptsDir' | 'external'>,
    private readonly record: SessionRecord,
    private readonly turns: Turns,
    private readonly prompt: KeptPrompt,
    private readonly hooks: Hooks,
  ) {}

  /** A person's message, with a hook's note where given. Returns the message as sent. */
  send(words: string, opts: MessageOptions & { hookNote?: string } = {}): { sent: string; notes: Note[] } {
    if (opts.mode) this.record.setMode(opts.mode);
    if (this.turns.busy()) this.turns.end();
    const row = this.record.row;
    const notes = this.notesAfter(this.turns.history(), opts.date);
    if (opts.hookNote) notes.push({ kind: 'hook', body: opts.hookNote });
    this.turns.setMessage(this.turns.current(), words, notes);
    // Cleared only once the message holding the note is stored: a crash between repeats it, never loses it.
    if (row.planNotePending) this.record.update({ planNotePending: false });
    if (row.revertedPending?.length) this.record.update({ revertedPending: [] });
    this.prompt.forRequest();
    return { sent: messageWithNotes(words, notes), notes };
  }

  /** The notes a message sent now would carry after `history` (the next message's price counts them). */
  notesAfter(history: readonly Turn[], date = localDate(this.deps.now())): Note[] {
    const row = this.record.row;
    return messageNotes({ row, history, date, promptsDir: this.deps.promptsDir, servers: this.deps.external?.instructions(row.tools) ?? [] });
  }

  /** A person's message after their UserPromptSubmit hooks: what those print joins it as a note. Returns their runs too. */
  async hooked(words: string, opts: MessageOptions & { signal?: AbortSignal } = {}): Promise<{ sent: string; notes: Note[]; hooks: HookRun[] }> {
    const prompt = this.hooks.empty ? undefined : await this.hooks.userPromptSubmit(words, opts.signal);
    return { ...this.send(words, { date: opts.date, mode: opts.mode, hookNote: prompt?.text }), hooks: prompt?.runs ?? [] };
  }
}
