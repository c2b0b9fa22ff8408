import path from 'node:path';
import type { SessionRow, TurnRow } from '../core/state/types.js';

/** The longest title made from a message, in characters (a word longer than that is cut). */
export const TITLE_LENGTH = 48;

/**
 * What the session list calls a session: the title it was given, else its first message (the
 * first that is not undone), short and trimmed, else — before any message — its folder's name.
 */
export function sessionTitle(row: Pick<SessionRow, 'title' | 'root'>, turns: readonly Pick<TurnRow, 'status' | 'words'>[]): string {
  if (row.title.trim() !== '') return row.title.trim();
  const first = turns.find((t) => t.status !== 'undone' && (t.words ?? '').trim() !== '');
  return first ? titleFromMessage(first.words!) : path.basename(row.root) || row.root;
}

/** A message as a title: its first line, spaces collapsed, cut at a word before TITLE_LENGTH with "…". */
export function titleFromMessage(text: string): string {
  const line = (text.trim().split('\n')[0] ?? '').replace(/\s+/g, ' ').trim();
  if (line.length <= TITLE_LENGTH) return line;
  const cut = line.slice(0, TITLE_LENGTH - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space >= TITLE_LENGTH / 2 ? cut.slice(0, space) : cut).replace(/[\s,.;:!?-]+$/, '')}…`;
}
