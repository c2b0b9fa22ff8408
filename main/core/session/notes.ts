import { contextConfig, fill } from '../config.js';
import type { Mode, Note, Turn } from './types.js';

/** What the model was last told, read from the history the next request carries. */
export interface Told {
  date?: string;
  mode: Mode;
  instructionsHash: string;
  /** Each MCP server's instructions as the model last got them (system prompt or note). */
  servers: Record<string, string>;
}

export function lastTold(
  history: readonly Turn[], prompt: { mode: Mode; instructionsHash: string; servers?: Record<string, string> },
): Told {
  const told: Told = { mode: prompt.mode, instructionsHash: prompt.instructionsHash, servers: { ...prompt.servers } };
  for (const turn of history) {
    for (const note of turn.notes) {
      if (note.kind === 'date') told.date = note.date;
      if (note.kind === 'mode') told.mode = note.mode;
      if (note.kind === 'instructions') told.instructionsHash = note.hash;
      if (note.kind === 'server') told.servers[note.server] = note.body;
    }
  }
  return told;
}

/** The message as sent: the person's words, then each note as its own paragraph. */
export function messageWithNotes(words: string, notes: readonly Note[]): string {
  const c = contextConfig.note;
  const paragraphs = notes.map((note) => {
    switch (note.kind) {
      case 'date':
        return fill(c.date, { date: note.date });
      case 'mode':
        return fill(c.mode, { mode: note.mode, body: note.body });
      case 'instructions':
        return fill(c.instructions, { path: note.path, body: note.body });
      case 'plan':
        return fill(c.plan, { body: note.body });
      case 'server':
        return fill(c.server, { server: note.server, body: note.body });
    }
  });
  return [words, ...paragraphs].filter((p) => p !== '').join(c.separator);
}

/** A local calendar date, YYYY-MM-DD. */
export function localDate(now: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}
