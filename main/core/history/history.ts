import type { RewindPlan } from '../checkpoints/types.js';
import { formatId } from '../hygiene/ids.js';
import { namedResult } from '../hygiene/named.js';
import type { Insertion } from '../calls/insertion.js';
import { SessionError } from '../state/deps.js';
import type { SessionFiles } from '../state/files.js';
import { withReverted } from '../state/notes.js';
import type { KeptPrompt } from '../state/prompt.js';
import type { SessionRecord } from '../state/record.js';
import { knownBefore } from '../state/restore.js';
import type { Turns } from '../state/turns.js';
import type { ResultRow, SessionStore, Turn } from '../state/types.js';
import { Compaction } from './compaction.js';

/**
 * Everything that changes a session's past, in one place: undo, rewind (with files or without),
 * deleting a turn, compaction, the person's reverts of files, and finishing a rewind a crash
 * interrupted. It is the one caller of the session's checkpoints for all of these (state/files.ts).
 * Each take-back checks what it may take back, then hands the turns to `takeBack`, the one step
 * where turns leave the request (so the dedupe and compaction tables). Editing and resending a
 * message, or regenerating a reply, is a rewind or an undo followed by a message (turn/loop.ts).
 */
export class History {
  private readonly compaction: Compaction;

  constructor(
    private readonly store: SessionStore,
    private readonly record: SessionRecord,
    private readonly turns: Turns,
    prompt: KeptPrompt,
    private readonly insertion: Insertion,
    private readonly files: SessionFiles,
    now: () => Date,
  ) {
    this.compaction = new Compaction(store, record, turns, prompt, now);
  }

  /** Takes back the last completed turn: its messages and results leave the request (files on disk stay). */
  undo(): Turn {
    const last = this.lastDone();
    this.takeBack([last]);
    return last;
  }

  /**
   * Rewinds to the person's message of turn `seq`: that turn and every later one are taken back, as
   * an undo takes back one (files on disk stay as they are). Sending the message again, or another
   * text, is an edit and resend. Returns the turns taken back, oldest first.
   */
  rewindTo(seq: number): Turn[] {
    return this.rewind(seq, (takeBack) => takeBack());
  }

  /**
   * A rewind with files (contract.md "Checkpoints"): the checkpoints put the files back first and
   * take the turns back inside their journal; each file is then known as it was before turn `seq`.
   */
  rewindWithFiles(seq: number): { turns: Turn[]; plan: RewindPlan } {
    let plan: RewindPlan | undefined;
    const turns = this.rewind(seq, (takeBack) => {
      plan = this.files.rewind(seq, takeBack);
    });
    this.insertion.setKnown(knownBefore(this.store, this.record.row.id, seq));
    return { turns, plan: plan! };
  }

  /** The last completed turn, as an undo takes it back, with its files (see rewindWithFiles). */
  undoWithFiles(): { turns: Turn[]; plan: RewindPlan } {
    return this.rewindWithFiles(this.lastDone().seq);
  }

  /** The last completed turn, which an undo takes back (refused, with why, where there is none). */
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

  /** Spec §7: the model's summary replaces the history (see Compaction.compact). */
  compact(words: string): string {
    return this.compaction.compact(words);
  }

  /** The summary and table the history starts with since the last compaction, if any. */
  compacted(): string | undefined {
    return this.compaction.history();
  }

  /**
   * The person takes the session's changes to a file back (Revert file: `rel` relative to the root,
   * `since` a turn's seq). The model still believes its own edits stand, so the next message tells
   * it (spec §10.3), naming the file.
   */
  revertFile(rel: string, since?: number): void {
    this.files.revertFile(rel, since);
    this.reverted(rel);
  }

  /** One hunk of the session's changes to a file taken back (see revertFile). */
  revertHunk(rel: string, hunk: number, since?: number): void {
    this.files.revertHunk(rel, hunk, since);
    this.reverted(rel);
  }

  /** A rewind with files a crash interrupted is finished: its files, then its turns (if still there). */
  recover(): void {
    this.files.recover((seq) => {
      if (this.turns.history().some((t) => t.seq === seq)) this.rewind(seq, (takeBack) => takeBack());
      this.insertion.setKnown(knownBefore(this.store, this.record.row.id, seq));
    });
  }

  private reverted(rel: string): void {
    this.record.update({ revertedPending: withReverted(this.record.row.revertedPending, [rel]) });
  }

  /** The turns from `seq` on, taken back inside `around` (a rewind with files wraps it in its journal). */
  private rewind(seq: number, around: (takeBack: () => void) => void): Turn[] {
    const history = this.turns.history();
    const at = history.findIndex((t) => t.seq === seq);
    if (at < 0) throw new SessionError(this.notInHistory(seq));
    const later = history.slice(at);
    if (later.some((t) => t.status === 'open')) throw new SessionError('A reply is still running; stop it before rewinding.');
    around(() => this.takeBack(later));
    return later;
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
function deleteProblem(turn: Turn, later: readonly Turn[], results: readonly ResultRow[]): string | undefined {
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
function lastPlanNote(turns: readonly Turn[]): Turn | undefined {
  return turns.filter((t) => t.notes.some((n) => n.kind === 'plan')).at(-1);
}
