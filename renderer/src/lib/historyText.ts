import type { TurnView } from '../../../main/contract.js';

export type HistoryAction = 'rewind' | 'edit' | 'delete' | 'undo';

/** Result ids as a short list: `#0004, #0005` or `#0004 … #0009` past four. */
function ids(list: string[]): string {
  if (list.length <= 4) return list.join(', ');
  return `${list[0]} … ${list[list.length - 1]}`;
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/**
 * A turn's number as the person counts turns: its place among the person's messages the history
 * keeps (contract.md: a rewind to turn N is to the N-th), not the store's seq, which keeps rising
 * after a rewind or an undo. Undefined for a turn taken back (it is in the history no more).
 */
export function turnNumber(turns: readonly TurnView[], seq: number): number | undefined {
  const i = turns.filter((t) => t.words !== undefined && t.status !== 'undone').findIndex((t) => t.seq === seq);
  return i < 0 ? undefined : i + 1;
}

/**
 * What a history action on turn `seq` takes back, in words for its confirmation: the turns and
 * the results (counted from main's view, nothing computed), and whether files on disk stay or
 * go back with them (`files`: the dialog lists which).
 */
export function whatGoes(turns: TurnView[], seq: number, action: HistoryAction, files = false): string {
  const gone = action === 'delete' || action === 'undo' ? turns.filter((t) => t.seq === seq) : turns.filter((t) => t.seq >= seq);
  const results = gone.flatMap((t) => t.parts.flatMap((p) => (p.type === 'tool' ? [p.tool.id] : [])));
  const later = gone.length - 1;
  const n = turnNumber(turns, seq) ?? seq;
  const which = action === 'delete' || action === 'undo' || later === 0 ? `Turn ${n}` : `Turn ${n} and the ${later === 1 ? 'turn' : plural(later, 'turn')} after it`;
  const what = results.length === 0 ? 'its words and replies' : `${results.length === 1 ? 'one result' : plural(results.length, 'result')} (${ids(results)})`;
  const after = {
    rewind: 'Your message goes back into the message box.',
    edit: 'Your edited message is then sent in its place.',
    delete: 'The turns after it stay.',
    undo: '',
  }[action];
  const disk = files ? `The files listed below go back as they were before turn ${n}.` : 'Files on disk stay as they are.';
  return `${which} ${gone.length === 1 ? 'is' : 'are'} taken back with ${what}: the model no longer sees them, and the next request reads again from there. ${disk} ${after}`.trimEnd();
}
