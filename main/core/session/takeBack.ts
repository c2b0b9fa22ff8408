import { formatId } from '../hygiene/ids.js';
import { namedResult } from '../hygiene/named.js';
import { SessionError } from './deps.js';
import type { SessionRecord } from './record.js';
import type { Turns } from './turns.js';
import type { ResultRow, SessionStore, Turn } from './types.js';

/**
 * Take-backs: undo, rewind and delete. Each checks what it may take back, then hands the turns to
 * `takeBack`, the one step where turns leave the request (so the dedupe and compaction tables);
 * a rewind with files wraps it (see rewindTo's `around`); otherwise files on disk stay as they are.
 */
export class TakeBacks {
  constructor(
    private readonly store: SessionStore,
    private readonly record: SessionRecord,
    private readonly turns: Turns,
  ) {}

  /** Takes back the last completed turn: its messages and results leave the request. */
  undo(): Turn {
    const last = this.lastDone();
    this.takeBack([last]);
    return last;
  }

  /**
   * Rewinds to the person's message of turn `seq`: that turn and every later one are taken back,
   * as an undo takes back one. Returns the turns taken back, oldest first.
   */
  rewindTo(seq: number, around: (takeBack: () => void) => void = (takeBack) => takeBack()): Turn[] {
    const history = this.turns.history();
    const at = history.findIndex((t) => t.seq === seq);
    if (at < 0) throw new SessionError(this.notInHistory(seq));
    const later = history.slice(at);
    if (later.some((t) => t.status === 'open')) throw new SessionError('A reply is still running; stop it before rewinding.');
    // With files, the checkpoints put them back first and take the turns back inside their journal.
    around(() => this.takeBack(later));
    return later;
  }

  /** The last completed turn, which an undo takes back. */
  lastDone(): Turn {
    if (this.turns.busy()) throw new SessionError('A reply is still running; stop it before undoing.');
    const last = this.turns.history().filter((t) => t.status === 'done').pop();
    if (!last) throw new SessionError('There is no completed turn to undo since the session began or was last compacted.');
    return last;
  }

  /**
   * Deletes one completed turn, keeping those after it: it is taken back as an undo takes back
   * the last (its reads leave the compaction table, spec §7). Refused where a later result would
   * then name a result the request no longer carries (see deleteProblem).
   */
  deleteTurn(seq: number): Turn {
    const history = this.turns.history();
    const turn = history.find((t) => t.seq === seq);
    if (!turn) throw new SessionError(this.notInHistory(seq));
    if (turn.status === 'open') throw new SessionError('A reply is still running; stop it before deleting a turn.');
    const later = history.filter((t) => t.seq > seq);
    const problem = deleteProblem(turn, later, this.store.listResults(this.record.row.id));
    if (problem) throw new SessionError(`Turn ${seq} cannot be deleted: ${problem}.`);
    this.takeBack([turn]);
    return turn;
  }

  private notInHistory(seq: number): string {
    const seqs = this.turns.history().map((t) => t.seq);
    const range = seqs.length === 0 ? 'there are none' : `they are ${seqs.join(', ')}`;
    return `There is no turn ${seq} in the history since the session began or was last compacted (${range}).`;
  }

  /**
   * Marks turns taken back. A plan change the person made travels again with the next message
   * when the message that carried it is among them, as the date and mode notes do.
   */
  private takeBack(turns: readonly Turn[]): void {
    const carriedPlan = lastPlanNote(this.turns.history());
    for (const turn of turns) this.turns.setStatus(turn, 'undone');
    if (carriedPlan && turns.includes(carriedPlan) && !this.record.row.planNotePending) this.record.update({ planNotePending: true });
  }
}

/**
 * Why a turn cannot be deleted while the turns after it stay, or undefined when it can: a later
 * kept result that is a stub or a `Same result as` naming one of its results would name a result
 * the request no longer carries (spec §2). Rewinding to it takes those later turns back too.
 */
export function deleteProblem(turn: Turn, later: readonly Turn[], results: readonly ResultRow[]): string | undefined {
  const own = new Set(results.filter((r) => r.turnId === turn.id).map((r) => r.number));
  const laterIds = new Map(later.map((t) => [t.id, t.seq]));
  for (const r of results) {
    const seq = laterIds.get(r.turnId);
    const named = seq === undefined ? undefined : namedResult(r);
    if (named !== undefined && own.has(named)) {
      return `turn ${seq}'s ${formatId(r.number)} stands for ${formatId(named)} from it, and a stub may name only a result the request carries; rewind to turn ${turn.seq} instead`;
    }
  }
  return undefined;
}

/** The turn holding the newest plan note among these, if any. */
export function lastPlanNote(turns: readonly Turn[]): Turn | undefined {
  return turns.filter((t) => t.notes.some((n) => n.kind === 'plan')).at(-1);
}
