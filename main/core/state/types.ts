import type { Attachment, Mode, PlanItem, ToolSpec } from '../types.js';
import type { Inserted, ReadRecord, ResultKind, TableEntry } from '../hygiene/types.js';
import type { BreakCause } from '../engine/breaks.js';
import type { ConversationCall, RequestUsage } from '../engine/types.js';

/** A session's kind; a value as well as a type, so the UI contract can check it without copying it. */
export const SESSION_KINDS = ['agent', 'chat'] as const;
export type SessionKind = (typeof SESSION_KINDS)[number];
export { MODES, type Mode } from '../types.js';
export { BREAK_CAUSES, type BreakCause, type EngineRecord } from '../engine/breaks.js';

/** A note Keel appends to a person's message (spec §10.3). */
export type Note =
  | { kind: 'date'; date: string }
  | { kind: 'mode'; mode: Mode; body: string }
  | { kind: 'instructions'; path: string; hash: string; body: string }
  | { kind: 'plan'; body: string }
  /** An MCP server's instructions that were not in the system prompt (they arrived later, or changed). */
  | { kind: 'server'; server: string; body: string }
  /** What the person's UserPromptSubmit hooks printed for this message. */
  | { kind: 'hook'; body: string }
  /** Files the person took the session's changes back from (Revert file or hunk in the app), relative to the root. */
  | { kind: 'reverted'; paths: string[] };

export interface SessionRow {
  id: number;
  kind: SessionKind;
  root: string;
  title: string;
  mode: Mode;
  /** The system prompt's exact bytes, built once, rebuilt only after compaction or a model switch. */
  systemPrompt: string;
  /** The mode and instruction file hash the system prompt was built with. */
  promptMode: Mode;
  promptInstructionsHash: string;
  /** Compactions so far: turns of earlier epochs are behind a summary. */
  epoch: number;
  plan: PlanItem[];
  model: string;
  /** The date templates see (`date_string`, `strftime_now`): fixed when the prompt is built. */
  promptDate: string;
  /** The person changed the plan and no message has carried it yet (spec §10.3). */
  planNotePending: boolean;
  /** Files the person reverted in the app that no message has told the model of yet (spec §10.3); absent when none. */
  revertedPending?: string[];
  createdAt: string;
  /**
   * The tool list every request sends, built once when the session was created and never changed
   * (spec §10.4). Undefined only in a row stored before lists were kept: Session.open builds it then.
   */
  tools?: ToolSpec[];
  /** The MCP servers' instructions the system prompt was built with, by server name. */
  serverInstructions?: Record<string, string>;
  /** A subagent's session: the session whose `task` call started it (deleted with it). */
  parentId?: number;
}

export type TurnStatus = 'open' | 'done' | 'undone';

export interface TurnRow {
  id: number;
  sessionId: number;
  seq: number;
  epoch: number;
  status: TurnStatus;
  /** The person's words and the notes added to them; the message as sent is derived from both. */
  words?: string;
  notes: Note[];
  createdAt: string;
}

/** A stored result: everything about it, the full body before any cap. */
export interface ResultRow {
  sessionId: number;
  number: number;
  turnId: number;
  tool: string;
  args: string;
  kind: ResultKind;
  pathGiven?: string;
  pathResolved?: string;
  fileHash?: string;
  lineStart?: number;
  lineEnd?: number;
  lineTotal?: number;
  /** Files a change wrote: [{absPath, hash}] (hash '' when deleted). */
  files?: string;
  /** Files the call changed without a diff in its result (Inserted.touched), as JSON. */
  touched?: string;
  /** For listings: the arguments as sorted-key JSON, so the dedupe table can be rebuilt. */
  argsKey?: string;
  body: string;
  inserted: string;
  /** The inserted text's length in the model's tokens, counted by the engine once it has it. */
  tokens?: number;
  /** The hooks that ran for the call (JSON of HookRun[]), for the person: the model got only `inserted`. */
  hooks?: string;
  createdAt: string;
}

export interface CompactionRow {
  sessionId: number;
  epoch: number;
  summary: string;
  text: string;
  createdAt: string;
}

/** A tool call the model made in a reply, with the number of its result: a request's call, less the result's text. */
export type ReplyCall = Omit<ConversationCall, 'result'>;

/**
 * One model reply of a turn: its words (what the person reads, before any call) and its calls.
 * `raw` is the exact generated text before the calls where it is more than the words (gpt-oss
 * writes its reasoning and words in channels), so the prompt re-renders what was generated.
 */
export interface ReplyRow {
  id: number;
  sessionId: number;
  turnId: number;
  seq: number;
  text: string;
  raw?: string;
  calls: ReplyCall[];
  createdAt: string;
}

/**
 * One request to the model and how much of it came from the KV cache: what the engine measured
 * (RequestUsage, less what the session turns into `cause`) and what the session knows of it.
 */
export interface RequestRow extends Omit<RequestUsage, 'rewritten' | 'lossCause'> {
  id: number;
  sessionId: number;
  kind: 'turn' | 'compaction';
  model: string;
  systemSha: string;
  toolsSha: string;
  firstDiff?: number;
  cause?: BreakCause;
  /** The seq of the turn the request belongs to. */
  turn?: number;
  /** What a turn's request answers: the person's message, or the results of the calls before it. */
  answers?: 'person' | 'results';
  /** The context the request ran in, in tokens. */
  contextSize?: number;
  createdAt: string;
}

/** What the session needs of its store. main/db implements it on SQLite. */
export interface SessionStore {
  /** A new session; `planNotePending` is false unless given. */
  createSession(row: Omit<SessionRow, 'id' | 'planNotePending'> & { planNotePending?: boolean }): SessionRow;
  getSession(id: number): SessionRow | undefined;
  updateSession(id: number, fields: Partial<Omit<SessionRow, 'id' | 'kind' | 'root' | 'createdAt'>>): void;
  insertTurn(row: Omit<TurnRow, 'id'>): TurnRow;
  updateTurn(id: number, fields: Partial<Pick<TurnRow, 'status' | 'words' | 'notes'>>): void;
  listTurns(sessionId: number): TurnRow[];
  /** Committed before it returns, with its attachments and its length in tokens: a crash after a result was shown can never lose it. */
  insertResult(row: ResultRow, attachments?: readonly Attachment[]): void;
  /** What a result stored beside its text (an MCP image, say), in order. */
  listAttachments(sessionId: number, number: number): Attachment[];
  getResult(sessionId: number, number: number): ResultRow | undefined;
  listResults(sessionId: number): ResultRow[];
  lastResultNumber(sessionId: number): number;
  insertCompaction(row: CompactionRow): void;
  insertReply(row: Omit<ReplyRow, 'id'>): ReplyRow;
  listReplies(sessionId: number): ReplyRow[];
  insertRequest(row: Omit<RequestRow, 'id'>): RequestRow;
  listRequests(sessionId: number): RequestRow[];
  lastCompaction(sessionId: number): CompactionRow | undefined;
}

/** What a result adds to its turn once a stored reply carries it (restore.ts `carry`). */
export type CarriedResult = Pick<Inserted, 'number' | 'entry' | 'read' | 'wrote' | 'touched'>;

/**
 * The turn state the session keeps in memory, mirrored from the store. `entries`, `reads` and
 * `wrote` are of the results a stored reply carries (so the requests do); a result of the reply
 * being made waits in `unreplied` until that reply is stored, and is dropped if it never is.
 */
export interface Turn extends TurnRow {
  replies: ReplyRow[];
  /** Its part of the dedupe table (spec §2). */
  entries: TableEntry[];
  /** Its full reads, for the compaction table (spec §7). */
  reads: ReadRecord[];
  /**
   * The files its results changed, in order (hash '' = deleted): written by a file tool (the model saw
   * the diff) or touched by its command, MCP tool or hook. Either way the session's change, not the person's.
   */
  wrote: { absPath: string; hash: string }[];
  /** Results run in the reply being made, which no stored reply carries yet. */
  unreplied: CarriedResult[];
  /** Results run in it, carried or not. */
  calls: number;
}
