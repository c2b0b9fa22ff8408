import type { TableEntry } from '../hygiene/types.js';
import type { SessionRecord } from './record.js';
import { carry } from './restore.js';
import type { CarriedResult, Note, SessionStore, Turn, TurnStatus } from './types.js';

/**
 * A session's turns, in memory as in the store: which is open, which the next request carries
 * (this epoch's, not taken back), and the dedupe table that follows from them. Every change of a
 * turn goes through here, written to the store before it is kept.
 */
export class Turns {
  constructor(
    private readonly store: SessionStore,
    private readonly record: SessionRecord,
    private readonly now: () => Date,
    private readonly list: Turn[],
    /** A new turn has begun (the checkpoints record the workspace as it is then). */
    private readonly onStart: (turn: Turn) => void = () => {},
  ) {}

  /** Turns the next request carries: this epoch's, not taken back. */
  history(): Turn[] {
    const epoch = this.record.row.epoch;
    return this.list.filter((t) => t.epoch === epoch && t.status !== 'undone');
  }

  /**
   * The dedupe table: full results the request being built carries (spec §2) — those of stored
   * replies (a chat's only in the open turn), then those of the reply being made, which the next
   * request carries with it.
   */
  table(): TableEntry[] {
    const open = this.open();
    const carried = this.record.row.kind === 'chat' ? (open ? [open] : []) : this.history();
    const making = open?.unreplied.flatMap((r) => (r.entry ? [r.entry] : [])) ?? [];
    return [...carried.flatMap((t) => t.entries), ...making];
  }

  /** A result of the reply being made in `turn` was stored: it waits there for the reply (see carry). */
  ran(turn: Turn, result: CarriedResult): void {
    turn.calls++;
    turn.unreplied.push({ number: result.number, entry: result.entry, read: result.read, wrote: result.wrote, touched: result.touched });
  }

  /**
   * The reply holding these results was stored: they join the request, so the dedupe and
   * compaction tables, in the same step.
   */
  carry(turn: Turn, numbers: readonly number[]): void {
    for (const number of numbers) {
      const at = turn.unreplied.findIndex((r) => r.number === number);
      if (at >= 0) carry(turn, turn.unreplied.splice(at, 1)[0]);
    }
  }

  /** The turn a reply is being made in, if any. */
  open(): Turn | undefined {
    const last = this.list[this.list.length - 1];
    return last && last.status === 'open' && last.epoch === this.record.row.epoch ? last : undefined;
  }

  /** Whether the open turn has begun: it carries a message or a result. */
  busy(): boolean {
    const open = this.open();
    return open !== undefined && (open.calls > 0 || open.words !== undefined);
  }

  /** The open turn, or a new one. */
  current(): Turn {
    return this.open() ?? this.start();
  }

  private start(): Turn {
    const row = this.store.insertTurn({
      sessionId: this.record.row.id, seq: this.list.length + 1, epoch: this.record.row.epoch, status: 'open', notes: [],
      createdAt: this.now().toISOString(),
    });
    const turn: Turn = { ...row, replies: [], entries: [], reads: [], wrote: [], unreplied: [], calls: 0 };
    this.list.push(turn);
    this.onStart(turn);
    return turn;
  }

  /** The person's message of a turn: its words and the notes sent with them. */
  setMessage(turn: Turn, words: string, notes: Note[]): void {
    this.store.updateTurn(turn.id, { words, notes });
    turn.words = words;
    turn.notes = notes;
  }

  setStatus(turn: Turn, status: TurnStatus): void {
    this.store.updateTurn(turn.id, { status });
    turn.status = status;
  }

  /**
   * The model's reply ended: the open turn is complete. A result no stored reply carries (the loop
   * failed between running a call and storing its reply) is in no request, so in no table; it stays
   * stored, and `recall` shows it — as after a crash (restore.ts).
   */
  end(): void {
    const open = this.open();
    if (!open) return;
    open.unreplied = [];
    this.setStatus(open, 'done');
  }
}
