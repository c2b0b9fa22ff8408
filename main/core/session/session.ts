import { Hooks } from '../hooks/hooks.js';
import type { HookRun } from '../hooks/run.js';
import type { TableEntry } from '../hygiene/types.js';
import { NO_RUNNER } from '../tools/commandRunner.js';
import type { PlanItem, ToolSpec } from '../types.js';
import { Compaction } from './compaction.js';
import type { NewSession, SessionDeps } from './deps.js';
import { Dispatch } from './dispatch.js';
import { Insertion } from './insertion.js';
import { Messages, type MessageOptions } from './messages.js';
import { instructionsNow, withReverted } from './notes.js';
import { KeptPrompt } from './prompt.js';
import { SessionRecord } from './record.js';
import { Replies } from './replies.js';
import { knownBefore } from './restore.js';
import { createSessionRow, readStoredSession } from './sessionRow.js';
import { SessionFiles } from './files.js';
import type { RewindPlan } from '../checkpoints/types.js';
import { TakeBacks } from './takeBack.js';
import { ToolCalls, type CallOptions, type CallResult } from './toolCalls.js';
import { Turns } from './turns.js';
import type { Mode, Note, ReplyCall, ReplyRow, SessionKind, SessionRow, Turn } from './types.js';

export { SessionError, type NewSession, type SessionDeps } from './deps.js';
export type { CallOptions, CallResult } from './toolCalls.js';

/**
 * One session, as its callers see it: the engine (main/llm) asks it for the system prompt and the
 * history, and hands it the model's tool calls; the app and the CLI hand it the person's messages
 * and take-backs. It knows nothing of models. Each job is its own module, and this class only
 * joins them: turns (turns.ts), tool calls (toolCalls.ts; dispatch and the gate in dispatch.ts,
 * insertion in insertion.ts), the person's messages (messages.ts) and their notes (notes.ts), the
 * kept system prompt (prompt.ts), take-backs (takeBack.ts), compaction (compaction.ts) and replies
 * (replies.ts), all on one row (record.ts), made or read back in sessionRow.ts.
 */
export class Session {
  private readonly turns: Turns;
  private readonly insertion: Insertion;
  private readonly calls: ToolCalls;
  private readonly messages: Messages;
  private readonly prompt: KeptPrompt;
  private readonly takeBacks: TakeBacks;
  private readonly compaction: Compaction;
  private readonly replies: Replies;
  /** The workspace's checkpoints: rewinds with files, the changes the session made, reverts (files.ts). */
  readonly files: SessionFiles;
  readonly hooks: Hooks;

  private constructor(private readonly deps: SessionDeps, private readonly record: SessionRecord, turns: Turn[], nextNumber: number, known: Map<string, string>, fresh: boolean) {
    const { store, now } = deps;
    const id = record.row.id;
    this.files = new SessionFiles(deps.checkpoints?.(id, record.row.root, { fresh }));
    this.turns = new Turns(store, record, now, turns, (turn) => this.files.turnStarted(turn.seq));
    this.insertion = new Insertion(store, id, now, nextNumber, known);
    this.hooks = new Hooks(() => deps.hooks?.(record.row.root) ?? [], () => ({ sessionId: id, root: record.row.root, runner: deps.commands ?? NO_RUNNER, mode: record.row.mode, approve: deps.permissions?.approve }));
    const dispatch = new Dispatch(deps, record, (absPath) => this.insertion.knownHash(absPath), this.hooks, () => this.files.beforeWrite(this.turns.current().seq));
    this.prompt = new KeptPrompt(deps, record, () => this.turns.history());
    this.calls = new ToolCalls(dispatch, this.insertion, this.turns, this.prompt, this.hooks, this.files, () => instructionsNow(record.row.root));
    this.messages = new Messages(deps, record, this.turns, this.prompt, this.hooks);
    this.takeBacks = new TakeBacks(store, record, this.turns);
    this.compaction = new Compaction(store, record, this.turns, this.prompt, now);
    this.replies = new Replies(store, id, this.turns, now);
  }

  static create(deps: SessionDeps, opts: NewSession): Session {
    return new Session(deps, new SessionRecord(deps.store, createSessionRow(deps, opts)), [], 1, new Map(), true);
  }

  /** Resumes a stored session (see readStoredSession): it sends the system prompt and tool list it kept, byte for byte. */
  static open(deps: SessionDeps, id: number): Session {
    const stored = readStoredSession(deps, id);
    const session = new Session(deps, new SessionRecord(deps.store, stored.row), stored.turns, stored.nextNumber, stored.known, false);
    // A rewind with files a crash interrupted is finished: its files, then its turns (if still there).
    session.files.recover((seq) => {
      if (session.history().some((t) => t.seq === seq)) session.takeBacks.rewindTo(seq);
      session.insertion.setKnown(knownBefore(deps.store, id, seq));
    });
    return session;
  }

  private get row(): SessionRow { return this.record.row; }
  get id(): number { return this.row.id; }
  get kind(): SessionKind { return this.row.kind; }
  get root(): string { return this.row.root; }
  get mode(): Mode { return this.row.mode; }
  get plan(): PlanItem[] { return this.row.plan; }
  get epoch(): number { return this.row.epoch; }
  get systemPrompt(): string { return this.row.systemPrompt; }
  get promptDate(): string { return this.row.promptDate; }
  get model(): string { return this.row.model; }
  /** Whether the person changed the plan since a message last carried it (kept in the store). */
  get planNotePending(): boolean { return this.row.planNotePending; }
  /** The tool list every request of this session sends: the same objects, in the same order, for its whole life. */
  get tools(): readonly ToolSpec[] { return this.row.tools ?? []; }

  /** The system prompt a request sends. The first request after a (re)build fixes the reference. */
  systemPromptForRequest(): string {
    return this.prompt.forRequest();
  }

  /** Whether the system prompt is byte-equal to what the first request since its (re)build sent. */
  systemPromptUnchanged(): boolean {
    return this.prompt.unchanged();
  }

  /** Turns the next request carries: this epoch's, not taken back. */
  history(): Turn[] {
    return this.turns.history();
  }

  /** The dedupe table: full results the request being built carries (spec §2). */
  table(): TableEntry[] {
    return this.turns.table();
  }

  /**
   * A tool call as the model made it: dispatched (validated, gated, run), inserted, and stored once,
   * with its length in tokens when `o.countTokens` is given (see ToolCalls).
   */
  callTool(name: string, args: unknown, o: CallOptions = {}): Promise<CallResult> {
    return this.calls.call(name, args, o);
  }

  /** A call the model made that could not be read (malformed arguments): answered with an error. */
  rejectCall(name: string, args: unknown, problem: string, o: CallOptions = {}): Promise<CallResult> {
    return this.calls.reject(name, args, problem, o);
  }

  /** The model's reply ended: the open turn is complete. */
  endReply(): void {
    this.turns.end();
  }

  /** The person changed the permission mode; the model hears of it as a note on the next message. */
  setMode(mode: Mode): void {
    this.record.setMode(mode);
  }

  /**
   * The person takes the session's changes to a file back (Revert file, Revert hunk: `rel` relative to
   * the root, `since` a turn's seq). The model still believes its own edits stand, so the next message
   * tells it (spec §10.3), naming the file.
   */
  revertFile(rel: string, since?: number): void {
    this.files.revertFile(rel, since);
    this.record.update({ revertedPending: withReverted(this.record.row.revertedPending, [rel]) });
  }

  revertHunk(rel: string, hunk: number, since?: number): void {
    this.files.revertHunk(rel, hunk, since);
    this.record.update({ revertedPending: withReverted(this.record.row.revertedPending, [rel]) });
  }

  /** The person edited the plan; the next message carries it as a note (stored until then). */
  setPlanByPerson(items: PlanItem[]): void {
    this.record.update({ plan: items, planNotePending: true });
  }

  /**
   * A person's message: starts a turn (ending a reply still open) and appends the notes it needs
   * (see messageNotes). Returns the message as sent.
   */
  userMessage(words: string, opts: MessageOptions & { hookNote?: string } = {}): { sent: string; notes: Note[] } {
    return this.messages.send(words, opts);
  }

  /**
   * A person's message after their UserPromptSubmit hooks: what those print joins it as a note
   * (see userMessage). Returns the hooks' runs too, for the person.
   */
  hookedMessage(words: string, opts: MessageOptions & { signal?: AbortSignal } = {}): Promise<{ sent: string; notes: Note[]; hooks: HookRun[] }> {
    return this.messages.hooked(words, opts);
  }

  /** The notes a message sent now would carry, were the history only the turns `keep` keeps (all: as it is). */
  notesAfter(keep: (seq: number) => boolean = () => true): Note[] {
    return this.messages.notesAfter(this.history().filter((t) => keep(t.seq)));
  }

  /** Takes back the last completed turn: its messages and results leave the request. */
  undo(): Turn {
    return this.takeBacks.undo();
  }

  /**
   * Rewinds to the person's message of turn `seq`: that turn and every later one are taken back
   * (files on disk stay as they are). Sending the message again, or another text, is an edit and
   * resend. Returns the turns taken back, oldest first.
   */
  rewindTo(seq: number): Turn[] {
    return this.takeBacks.rewindTo(seq);
  }

  /** A rewind with files (contract.md "Checkpoints"): files, then turns; each file then known as before turn `seq`. */
  rewindWithFiles(seq: number): { turns: Turn[]; plan: RewindPlan } {
    let plan: RewindPlan | undefined;
    const turns = this.takeBacks.rewindTo(seq, (takeBack) => {
      plan = this.files.rewind(seq, takeBack);
    });
    this.insertion.setKnown(knownBefore(this.deps.store, this.id, seq));
    return { turns, plan: plan! };
  }

  /** The last completed turn, as an undo takes it back, with its files (see rewindWithFiles). */
  undoWithFiles(): { turns: Turn[]; plan: RewindPlan } {
    return this.rewindWithFiles(this.takeBacks.lastDone().seq);
  }

  /** The turn an undo would take back now (refused, with why, where there is none). */
  undoTarget(): Turn {
    return this.takeBacks.lastDone();
  }

  /** Deletes one completed turn, keeping those after it, where spec §7 allows (see TakeBacks.deleteTurn). */
  deleteTurn(seq: number): Turn {
    return this.takeBacks.deleteTurn(seq);
  }

  /** Spec §7: the model's summary replaces the history (see Compaction.compact). */
  compact(words: string): string {
    return this.compaction.compact(words);
  }

  /**
   * Builds the system prompt again: only where everything is read again anyway (after a
   * compaction, or when the session moves to another model).
   */
  rebuildPrompt(fields: Partial<Pick<SessionRow, 'epoch' | 'model'>> = {}): void {
    this.prompt.rebuild(fields);
  }

  /** Records a model reply of the open turn: its words, its calls with their result numbers, and its raw text (see ReplyRow). */
  recordReply(text: string, calls: ReplyCall[], raw?: string): ReplyRow {
    return this.replies.record(text, calls, raw);
  }

  /** The text a result was inserted as (what the model got). */
  insertedText(number: number): string {
    return this.insertion.text(number);
  }

  /** The summary and table the history starts with since the last compaction, if any. */
  compactedHistory(): string | undefined {
    return this.compaction.history();
  }
}
