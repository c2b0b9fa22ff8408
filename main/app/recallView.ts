import type { RecallView } from '../contract.js';
import { loopConfig } from '../core/config.js';
import { elidedMark } from '../core/hygiene/cap.js';
import { formatId, parseId } from '../core/hygiene/ids.js';
import type { Session } from '../core/session/session.js';
import type { SessionStore } from '../core/state/types.js';

/** A stored result for the inspector: its metadata, whether the next request carries it, one page of its body. */
export function recallView(session: Session, store: SessionStore, result: string, offset = 1, running = false): RecallView {
  const { number, label } = parseId(result);
  const row = number === undefined ? undefined : store.getResult(session.id, number);
  if (!row || number === undefined) throw new Error(`No stored result ${label} in session ${session.id}.`);
  const lines = row.body === '' ? [] : row.body.split('\n');
  const turn = session.turns().find((t) => t.id === row.turnId);
  const last = session.turns().at(-1);
  const page = loopConfig.recallPage;
  const elided = elidedMark(row.inserted, row.body, formatId(number));
  return {
    id: formatId(number), number, tool: row.tool, args: JSON.parse(row.args), pathGiven: row.pathGiven,
    pathResolved: row.pathResolved, fileHash: row.fileHash, kind: row.kind, insertedAt: row.createdAt,
    inRequest: turn !== undefined && (session.kind === 'agent' || (turn === last && turn.status === 'open'))
      // A result whose reply was never stored (cut off by a quit or crash) is not carried; one of the reply running now is.
      && (running || turn.replies.some((r) => r.calls.some((c) => c.number === number))),
    inserted: row.inserted, ...(elided ? { elided } : {}), offset, lines: lines.slice(offset - 1, offset - 1 + page), totalLines: lines.length, pageSize: page,
  };
}
