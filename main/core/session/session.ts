import { Hooks } from '../hooks/hooks.js';
import type { HookRun } from '../hooks/run.js';
import type { TableEntry } from '../hygiene/types.js';
import { NO_RUNNER } from '../tools/commandRunner.js';
import type { PlanItem, ToolSpec } from '../types.js';
import { Calls } from '../calls/calls.js';
import { Insertion } from '../calls/insertion.js';
import { History } from '../history/history.js';
import type { NewSession, SessionDeps } from '../state/deps.js';
import { SessionFiles } from '../state/files.js';
import { Messages, type MessageOptions } from '../state/messages.js';
import { KeptPrompt } from '../state/prompt.js';
import { SessionRecord } from '../state/record.js';
import { Replies } from '../state/replies.js';
import { createSessionRow, readStoredSession } from '../state/sessionRow.js';
import { Turns } from '../state/turns.js';
import type { Mode, Note, ReplyCall, ReplyRow, SessionKind, SessionRow, Turn } from '../state/types.js';

export { SessionError, type NewSession, type SessionDeps } from '../state/deps.js';
export type { CallOptions, CallResult } from '../calls/calls.js';

/**
 * One session: a small front that wires its parts, each one place. Its state (core/state: the row,
 * turns, kept prompt, messages and notes, replies, file changes); its calls (core/calls: the one
 * pipeline every tool call goes through); its history (core/history: everything that changes the
 * past). The loop (core/turn) sequences them; callers use `calls` and `history` directly. It knows
 * nothing of models.
 */
export class Session {
  private readonly turnList: Turns;
  private readonly insertion: Insertion;
  private readonly messages: Messages;
  private readonly prompt: KeptPrompt;
  private readonly replies: Replies;
  /** The one call pipeline (core/calls): `run` a call as the model made it. */
  readonly calls: Calls;
  /** What changes the past (core/history): undo, rewinds, deleting a turn, compaction, reverts. */
  readonly history: History;
  /** The workspace's checkpoints: rewinds with files, the changes the session made, reverts (state/files.ts). */
  readonly files: SessionFiles;
  readonly hooks: Hooks;

  private constructor(private readonly deps: SessionDeps, private readonly record: SessionRecord, turns: Turn[], nextNumber: number, known: Map<string, string>, fresh: boolean) {
    const { store, now } = deps;
    const id = record.row.id;
    this.files = new SessionFiles(deps.checkpoints?.(id, record.row.root, { fresh }));
    this.turnList = new Turns(store, record, now, turns, (turn) => this.files.turnStarted(turn.seq));
    this.insertion = new Insertion(store, id, now, nextNumber, known);
    this.hooks = new Hooks(() => deps.hooks?.(record.row.root) ?? [], () => ({ sessionId: id, root: record.row.root, runner: deps.commands ?? NO_RUNNER, mode: record.row.mode, approve: deps.permissions?.approve }));
    this.prompt = new KeptPrompt(deps, record, () => this.turnList.history());
    this.calls = new Calls(deps, record, this.turnList, this.prompt, this.insertion, this.hooks, this.files);
    this.messages = new Messages(deps, record, this.turnList, this.prompt, this.hooks);
    this.history = new History(store, record, this.turnList, this.prompt, this.insertion, this.files, now);
    this.replies = new Replies(store, id, this.turnList, now);
  }

  static create(deps: SessionDeps, opts: NewSession): Session {
    return new Session(deps, new SessionRecord(deps.store, createSessionRow(deps, opts)), [], 1, new Map(), true);
  }

  /** Resumes a stored session (see readStoredSession): it sends the system prompt and tool list it kept, byte for byte. */
  static open(deps: SessionDeps, id: number): Session {
    const stored = readStoredSession(deps, id);
    const session = new Session(deps, new SessionRecord(deps.store, stored.row), stored.turns, stored.nextNumber, stored.known, false);
    session.history.recover();
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
  turns(): Turn[] {
    return this.turnList.history();
  }

  /** The dedupe table: full results the request being built carries (spec §2). */
  table(): TableEntry[] {
    return this.turnList.table();
  }

  /** The model's reply ended: the open turn is complete. */
  endReply(): void {
    this.turnList.end();
  }

  /** The person changed the permission mode; the model hears of it as a note on the next message. */
  setMode(mode: Mode): void {
    this.record.setMode(mode);
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
    return this.messages.notesAfter(this.turns().filter((t) => keep(t.seq)));
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
}
