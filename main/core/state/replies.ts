import type { Turns } from './turns.js';
import type { ReplyCall, ReplyRow, SessionStore } from './types.js';

/** The model's replies: each stored in the open turn, in order, with its calls' result numbers. */
export class Replies {
  constructor(
    private readonly store: SessionStore,
    private readonly sessionId: number,
    private readonly turns: Turns,
    private readonly now: () => Date,
  ) {}

  /** Records a model reply of the open turn: its words, its calls with their result numbers, and its raw text (see ReplyRow). */
  record(text: string, calls: ReplyCall[], raw?: string): ReplyRow {
    const turn = this.turns.current();
    const reply = this.store.insertReply({
      sessionId: this.sessionId, turnId: turn.id, seq: turn.replies.length + 1, text, ...(raw === undefined ? {} : { raw }), calls,
      createdAt: this.now().toISOString(),
    });
    turn.replies.push(reply);
    // Its results join the request now, and with it the dedupe and compaction tables (spec §2, §7).
    this.turns.carry(turn, calls.map((c) => c.number));
    return reply;
  }
}
