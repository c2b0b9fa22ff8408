/**
 * The one contract between the UI and main: every call the UI can make and every event main
 * pushes. Types only (the renderer imports nothing else from main). Main binds it to ipcMain
 * (main/ipc), preload exposes exactly it, and the loopback server (main/server) speaks it over a
 * WebSocket. The renderer mirrors what main pushes; it never computes hygiene or token counts.
 */
import type { ElidedMark } from './core/hygiene/cap.js';
import type { ApprovalAnswer, ApprovalRequest } from './core/permissions/approval.js';
import type { Mode, RequestRow, SessionKind } from './core/session/types.js';
import type { Choice, DoctorReport, LocalSettings, LocalSettingsText, LocalSetup } from './llm/localSettings.js';

export type { ApprovalAnswer, Choice, DoctorReport, ElidedMark, LocalSettings, LocalSettingsText, LocalSetup, Mode, RequestRow, SessionKind };

export interface SessionSummary {
  id: number;
  kind: SessionKind;
  workspace: string;
  title: string;
  model: string;
  mode: Mode;
  turns: number;
  createdAt: string;
}

/** A note Keel appended to a person's message, as the UI shows it. */
export interface NoteView {
  kind: 'date' | 'mode' | 'instructions' | 'plan' | 'server';
  text: string;
}

/** A tool call and its result exactly as the model got it. */
export interface ToolView {
  number: number;
  id: string;
  name: string;
  args: unknown;
  text: string;
  /** The text's length in the model's tokens, as the engine counted it. */
  tokens?: number;
  /** Where the text's elided line is, when the result was capped (spec §3). */
  elided?: ElidedMark;
}

export type ReplyPart = { type: 'text'; text: string } | { type: 'tool'; tool: ToolView };

export interface TurnView {
  seq: number;
  status: 'open' | 'done' | 'undone';
  /** The person's own words; notes are separate and never look like them. */
  words?: string;
  notes: NoteView[];
  parts: ReplyPart[];
}

export interface SessionView {
  summary: SessionSummary;
  /** The summary and table that replaced the history at the last compaction, if any. */
  compacted?: string;
  turns: TurnView[];
  plan: { text: string; status: 'todo' | 'doing' | 'done' }[];
  /** The person changed the plan and the model hears of it with the next message. */
  planPending: boolean;
  systemPromptSha: string;
  running: boolean;
}

export interface RecallView {
  id: string;
  number: number;
  tool: string;
  args: unknown;
  pathGiven?: string;
  pathResolved?: string;
  fileHash?: string;
  kind: string;
  insertedAt: string;
  /** Whether this result's text is among those the next request sends. */
  inRequest: boolean;
  /** The text as the model got it. */
  inserted: string;
  /** Where the inserted text's elided line is, when the result was capped. */
  elided?: ElidedMark;
  /** A page of the full stored body. */
  offset: number;
  lines: string[];
  totalLines: number;
  /** How many lines a page holds (loop.json `loop.recall_page`). */
  pageSize: number;
}

/** An action waiting for the person: exactly what will happen (the diff, the command line), before it does. */
export type ApprovalView = ApprovalRequest & { approvalId: number };

export interface ModelFile {
  path: string;
  name: string;
  sizeBytes: number;
}

export interface AppState {
  modelsFolder: string;
  lastModel?: string;
  loadedModel?: string;
  dataFolder: string;
  /** A problem main wants the person to see (a database it cannot use, say). */
  problem?: string;
  /** Whether pickFolder() opens a native folder dialog (the desktop app; not browser mode). */
  canPickFolder?: boolean;
  /** Whether commands run in an OS sandbox here, and in plain words what that means (or why not). */
  sandbox?: { on: boolean; text: string };
  /** What each loaded model actually uses (backend, context size…), by its path. */
  loadedSetups?: Record<string, LocalSetup>;
}

/** An MCP configuration file of a workspace: the person's own (`user`) or the workspace's `.mcp.json`. */
export interface McpFileView {
  file: string;
  scope: 'user' | 'workspace' | 'given';
  exists: boolean;
  /** SHA-256 of its content: what approveMcpFile approves. */
  hash: string;
  /** A workspace file whose servers wait for the person's approval of it as it is now. */
  needsApproval: boolean;
  servers: string[];
  /** What is wrong with it or an entry (each left out), naming the file. */
  problems: string[];
}

export interface McpServerView {
  name: string;
  scope: 'user' | 'workspace' | 'given';
  file: string;
  /** The command line, or the URL and transport. */
  launch: string;
  state: 'stopped' | 'connecting' | 'connected' | 'failed' | 'disconnected' | 'not approved';
  /** How it was reached: stdio, streamable-http or sse. */
  via?: string;
  lastError?: string;
  instructions?: string;
  /** The person trusts its read-only hints (its read-only tools then run without asking). */
  trusted: boolean;
  tools: { name: string; tool: string; description: string; readOnly: boolean }[];
  /** Tools it lists that cannot be offered, each with why. */
  leftOut: string[];
  /** With a session: tools listed now that the session's fixed list lacks (or lists otherwise); they join the next session. */
  waiting?: { name: string; change: 'new' | 'changed' }[];
}

export interface McpServersView {
  workspace: string;
  files: McpFileView[];
  servers: McpServerView[];
}

/** Every call the UI can make. Each returns a promise; failures reject with a readable message. */
export interface KeelApi {
  getState(): Promise<AppState>;
  listSessions(): Promise<SessionSummary[]>;
  createSession(o: { workspace: string; kind: SessionKind; mode?: Mode; title?: string }): Promise<SessionSummary>;
  openSession(id: number): Promise<SessionView>;
  deleteSession(id: number): Promise<void>;
  /** Sends a message; the reply streams as events; resolves when the turn ends. */
  send(id: number, text: string): Promise<void>;
  stop(id: number): Promise<void>;
  undo(id: number): Promise<void>;
  /** Takes back turn `seq` (the person's message) and every later turn; files on disk stay as they are. */
  rewind(id: number, seq: number): Promise<void>;
  /** Rewinds to turn `seq` and sends `text` in its place; resolves when the new turn ends. */
  editAndResend(id: number, seq: number, text: string): Promise<void>;
  /** Takes back one turn and keeps the later ones; refused (with why) where a later stub names its results. */
  deleteTurn(id: number, seq: number): Promise<void>;
  regenerate(id: number): Promise<void>;
  compact(id: number): Promise<void>;
  setMode(id: number, mode: Mode): Promise<void>;
  recall(id: number, result: string, offset?: number): Promise<RecallView>;
  requests(id: number): Promise<RequestRow[]>;
  listModels(): Promise<ModelFile[]>;
  setModelsFolder(folder: string): Promise<void>;
  /** Loads a GGUF (progress arrives as events) and makes it the app's model. */
  loadModel(path: string): Promise<void>;
  switchModel(id: number, path: string): Promise<void>;
  /** Downloads the recommended model (or `uri`) into the models folder, then loads it; progress as model-progress events. */
  downloadModel(uri?: string): Promise<string>;
  /** The person edited the plan: it is kept, and the model hears of it as a note on the next message. */
  setPlan(id: number, items: { text: string; status: 'todo' | 'doing' | 'done' }[]): Promise<void>;
  /** Opens the native folder dialog; undefined when the person cancels or there is none (browser mode). */
  pickFolder(): Promise<string | undefined>;
  /** Answers an approval request (Allow once / Always for this session / Deny, with what to tell the model). */
  answerApproval(approvalId: number, answer: ApprovalAnswer, reason?: string): Promise<void>;
  /** Approvals still waiting (after a reload of the window, say). */
  pendingApprovals(): Promise<ApprovalView[]>;
  /** The local engine settings as saved (each 'auto' unless the person chose). */
  localSettings(): Promise<LocalSettings>;
  /**
   * Checks and saves the settings, then loads the app's model again with them. A value Keel cannot
   * use, or one that does not fit with the model, is refused in words and nothing changes.
   */
  setLocalSettings(settings: LocalSettingsText): Promise<LocalSettings>;
  /** The machine (backend, devices, free memory) and, for `model` (default: the app's), what a load would use and why. */
  doctor(model?: string): Promise<DoctorReport>;
  /** A workspace's MCP servers (connecting those that may run); with a session, the tools waiting for the next one. */
  mcpServers(workspace: string, sessionId?: number): Promise<McpServersView>;
  /** Approves the workspace's `.mcp.json` as shown (its hash), then starts its servers; a file changed since is refused. */
  approveMcpFile(workspace: string, hash: string): Promise<void>;
  restartMcpServer(workspace: string, name: string): Promise<void>;
  /** Trusts (or no longer trusts) a server's read-only hints. */
  trustMcpServer(workspace: string, name: string, trusted: boolean): Promise<void>;
  // Model servers (issue 11): the picker's "Server (URL)".
  /** The models a server lists; a key given is kept for that URL (the OS keychain in the app). */
  serverModels(url: string, key?: string): Promise<string[]>;
  /**
   * Checks the server's model and makes it the model new sessions use; with a session, moves that
   * session to it (the next request re-reads everything, recorded as "model switched").
   */
  useServerModel(url: string, model: string, sessionId?: number): Promise<string>;
}

export type KeelMethod = keyof KeelApi;

/** Everything main pushes. */
export type KeelEvent =
  | { type: 'session-changed'; sessionId: number }
  /** Sessions were created or deleted outside this window (by `keel` on the same store). */
  | { type: 'sessions-changed' }
  | { type: 'message'; sessionId: number; sent: string }
  | { type: 'text'; sessionId: number; delta: string }
  | { type: 'tool'; sessionId: number; tool: ToolView }
  | { type: 'request'; sessionId: number; request: RequestRow }
  | { type: 'turn-ended'; sessionId: number }
  | { type: 'approval'; approval: ApprovalView }
  | { type: 'approval-answered'; approvalId: number; answer: ApprovalAnswer }
  | { type: 'model-progress'; path: string; fraction: number }
  | { type: 'model-loaded'; path: string }
  | { type: 'error'; sessionId?: number; message: string }
  /** A workspace's MCP server changed state, tools (list_changed) or error: read mcpServers again. */
  | { type: 'mcp-changed'; workspace: string }
  | { type: 'mcp-progress'; sessionId: number; tool: string; progress: number; total?: number; message?: string };

/** Methods whose trailing arguments may be left out: from this index on. Every other argument is required. */
export const OPTIONAL_FROM: Partial<Record<KeelMethod, number>> = {
  recall: 2, downloadModel: 0, answerApproval: 2, doctor: 0, mcpServers: 1, serverModels: 1, useServerModel: 2,
};

/** The shape of each method's arguments, checked in main before anything runs. */
export const METHOD_ARGS = {
  getState: [],
  listSessions: [],
  createSession: [{ type: 'object', required: ['workspace', 'kind'], properties: {
    workspace: { type: 'string' }, kind: { type: 'string', enum: ['agent', 'chat'] },
    mode: { type: 'string', enum: ['ask', 'accept-edits', 'plan', 'auto'] }, title: { type: 'string' },
  } }],
  openSession: [{ type: 'integer', minimum: 1 }],
  deleteSession: [{ type: 'integer', minimum: 1 }],
  send: [{ type: 'integer', minimum: 1 }, { type: 'string' }],
  stop: [{ type: 'integer', minimum: 1 }],
  undo: [{ type: 'integer', minimum: 1 }],
  rewind: [{ type: 'integer', minimum: 1 }, { type: 'integer', minimum: 1 }],
  editAndResend: [{ type: 'integer', minimum: 1 }, { type: 'integer', minimum: 1 }, { type: 'string' }],
  deleteTurn: [{ type: 'integer', minimum: 1 }, { type: 'integer', minimum: 1 }],
  regenerate: [{ type: 'integer', minimum: 1 }],
  compact: [{ type: 'integer', minimum: 1 }],
  setMode: [{ type: 'integer', minimum: 1 }, { type: 'string', enum: ['ask', 'accept-edits', 'plan', 'auto'] }],
  recall: [{ type: 'integer', minimum: 1 }, { type: 'string' }, { type: 'integer', minimum: 1 }],
  requests: [{ type: 'integer', minimum: 1 }],
  listModels: [],
  setModelsFolder: [{ type: 'string' }],
  loadModel: [{ type: 'string' }],
  switchModel: [{ type: 'integer', minimum: 1 }, { type: 'string' }],
  answerApproval: [{ type: 'integer', minimum: 1 }, { type: 'string', enum: ['allow', 'allow-session', 'deny'] }, { type: 'string' }],
  pendingApprovals: [],
  pickFolder: [],
  downloadModel: [{ type: 'string' }],
  setPlan: [{ type: 'integer', minimum: 1 }, { type: 'array', items: { type: 'object', required: ['text'], properties: {
    text: { type: 'string' }, status: { type: 'string', enum: ['todo', 'doing', 'done'] },
  } } }],
  localSettings: [],
  setLocalSettings: [{ type: 'object', properties: {
    backend: { type: 'string' }, gpuLayers: { type: 'string' }, contextSize: { type: 'string' }, threads: { type: 'string' }, kvCacheType: { type: 'string' },
  } }],
  doctor: [{ type: 'string' }],
  mcpServers: [{ type: 'string' }, { type: 'integer', minimum: 1 }],
  approveMcpFile: [{ type: 'string' }, { type: 'string' }],
  restartMcpServer: [{ type: 'string' }, { type: 'string' }],
  trustMcpServer: [{ type: 'string' }, { type: 'string' }, { type: 'boolean' }],
  serverModels: [{ type: 'string' }, { type: 'string' }],
  useServerModel: [{ type: 'string' }, { type: 'string' }, { type: 'integer', minimum: 1 }],
} as const satisfies Record<KeelMethod, readonly object[]>;
