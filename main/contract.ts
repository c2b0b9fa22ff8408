/**
 * The one contract between the UI and main, written once: every call the UI can make (the table
 * below: each method's argument schemas and signature), every event main pushes, and the views
 * both carry. Main binds it to ipcMain (main/ipc), preload exposes exactly it, the loopback server
 * (main/server) speaks it over a WebSocket, and the renderer's clients are built from it.
 * `KeelApi`, `METHODS` and the argument checks all derive from `CONTRACT`: adding a method is one
 * entry here (and its implementation in main/app/service.ts, which `implements KeelApi`).
 *
 * This module holds values, so main, the preload script and the renderer can all import it: it
 * may import values only from leaf modules with no Node code (the enums of main/core), and types
 * from anywhere. The renderer mirrors what main pushes; it never computes hygiene or token counts.
 */
import { APPROVAL_ANSWERS, type ApprovalAnswer } from './core/approvalAnswers.js';
import { SESSION_KINDS, type RequestRow, type SessionKind } from './core/state/types.js';
import { MODE_HELP, MODES, PLAN_STATUSES, type Mode, type PlanItem } from './core/types.js';
import type { Choice, DoctorReport, LocalSettings, LocalSettingsText, LocalSetup, ModelPlan } from './llm/localSettings.js';
import { optional, takes, type SignatureOf, type TypeOf } from './contract/shape.js';
import { EDITOR_SERVERS, FLAG, PATH, SEQ, SESSION_ID, TEXT } from './contract/args.js';
import { CHECKPOINT_CALLS, type FilesPutBack } from './contract/checkpoints.js';
import type {
  AppState, ApprovalView, McpServersView, ModelFile, RecallView, SessionSummary, SessionView,
} from './contract/views.js';
import type { ElidedMark } from './core/hygiene/cap.js';
import type { ContextPart, ContextView } from './core/context/types.js';
import { HOOKS_CONTRACT } from './contract/hooks.js';
import { PRICE_CALLS } from './contract/price.js';
import { SETTINGS_CALLS } from './contract/settings.js';
import { SHELL_CALLS } from './contract/shells.js';
import { COMMAND_CALLS } from './contract/commands.js';
import { PROJECT_FILE_CALLS } from './contract/projectFiles.js';

export type * from './contract/views.js';
export type * from './contract/hooks.js';
export type * from './contract/checkpoints.js';
export type * from './contract/price.js';
export type * from './contract/settings.js';
export type * from './contract/shells.js';
export type * from './contract/commands.js';
export type * from './contract/projectFiles.js';
export { PROJECT_FILE_KINDS } from './contract/projectFiles.js';
export type { KeelEvent } from './contract/events.js';
export { CALL_CHANNEL, EVENT_CHANNEL, type CallReply } from './contract/transport.js';
/** How an approval shows text (control, escape and bidi characters named): the CLI calls the same function. */
export { visibleParts, visibleText, type VisiblePart } from './core/permissions/visible.js';
/** The closed sets the UI offers, as core defines them (the renderer imports them from here). */
export { APPROVAL_ANSWERS, MODE_HELP, MODES, PLAN_STATUSES, SESSION_KINDS };
export type { ContextPart, ContextView };
export type { ApprovalAnswer, Choice, DoctorReport, ElidedMark, LocalSettings, LocalSettingsText, LocalSetup, Mode, ModelPlan, RequestRow, SessionKind };


/** Each local engine setting as the Settings panel sends it: a new setting that is not here fails to compile. */
const LOCAL_SETTINGS_TEXT = {
  backend: TEXT, gpuLayers: TEXT, contextSize: TEXT, threads: TEXT, kvCacheType: TEXT, checkpointMemory: TEXT, windowCache: TEXT, speculation: TEXT, draftModel: TEXT, flashAttention: TEXT,
} satisfies Record<keyof LocalSettings, typeof TEXT>;

/** An MCP server an editor passes over ACP (contract/args.ts EDITOR_SERVERS). */
export type EditorServer = TypeOf<typeof EDITOR_SERVERS>[number];

/** Every call the UI can make. Each returns a promise; failures reject with a readable message. */
export const CONTRACT = {
  getState: takes().as<() => Promise<AppState>>(),
  listSessions: takes().as<() => Promise<SessionSummary[]>>(),
  /** A new session; `mcpServers`: an editor's own servers (ACP), whose tools join the session's fixed list. */
  createSession: takes({ type: 'object', required: ['workspace', 'kind'], properties: {
    workspace: PATH, kind: { type: 'string', enum: SESSION_KINDS }, mode: { type: 'string', enum: MODES }, title: TEXT, mcpServers: EDITOR_SERVERS,
  } }).as<(o: { workspace: string; kind: SessionKind; mode?: Mode; title?: string; mcpServers?: EditorServer[] }) => Promise<SessionSummary>>(),
  /** The editor's servers for a session it opened (ACP's session/load), used from the session's next request on. */
  useEditorServers: takes(SESSION_ID, EDITOR_SERVERS).as<(id: number, servers: EditorServer[]) => Promise<void>>(),
  openSession: takes(SESSION_ID).as<(id: number) => Promise<SessionView>>(),
  deleteSession: takes(SESSION_ID).as<(id: number) => Promise<void>>(),
  /** Sends a message; the reply streams as events; resolves when the turn ends. */
  send: takes(SESSION_ID, TEXT).as<(id: number, text: string) => Promise<void>>(),
  stop: takes(SESSION_ID).as<(id: number) => Promise<void>>(),
  /** Takes back the last completed turn; with `files`, what it changed in the workspace too (see rewindPlan). */
  undo: takes(SESSION_ID, optional(FLAG)).as<(id: number, files?: boolean) => Promise<FilesPutBack | undefined>>(),
  /** Takes back turn `seq` (the person's message) and every later turn; files on disk stay as they are unless `files`. */
  rewind: takes(SESSION_ID, SEQ, optional(FLAG)).as<(id: number, seq: number, files?: boolean) => Promise<FilesPutBack | undefined>>(),
  /** Rewinds to turn `seq` (with its files, if `files`) and sends `text` in its place; resolves when the new turn ends. */
  editAndResend: takes(SESSION_ID, SEQ, TEXT, optional(FLAG))
    .as<(id: number, seq: number, text: string, files?: boolean) => Promise<FilesPutBack | undefined>>(),
  /** Takes back one turn and keeps the later ones; refused (with why) where a later stub names its results. */
  deleteTurn: takes(SESSION_ID, SEQ).as<(id: number, seq: number) => Promise<void>>(),
  regenerate: takes(SESSION_ID).as<(id: number) => Promise<void>>(),
  compact: takes(SESSION_ID).as<(id: number) => Promise<void>>(),
  setMode: takes(SESSION_ID, { type: 'string', enum: MODES }).as<(id: number, mode: Mode) => Promise<void>>(),
  recall: takes(SESSION_ID, { type: 'string' }, optional({ type: 'integer', minimum: 1 }))
    .as<(id: number, result: string, offset?: number) => Promise<RecallView>>(),
  requests: takes(SESSION_ID).as<(id: number) => Promise<RequestRow[]>>(),
  /** The next message's request by part, each cached or new, summing to its prompt tokens (opens the session's model; refused while it answers). */
  context: takes(SESSION_ID).as<(id: number) => Promise<ContextView>>(),
  listModels: takes().as<() => Promise<ModelFile[]>>(),
  setModelsFolder: takes(PATH).as<(folder: string) => Promise<void>>(),
  /** Loads a GGUF (progress arrives as events) and makes it the app's model. */
  loadModel: takes(PATH).as<(path: string) => Promise<void>>(),
  switchModel: takes(SESSION_ID, PATH).as<(id: number, path: string) => Promise<void>>(),
  /** Answers an approval request (Allow once / Always for this session / Deny, with what to tell the model). */
  answerApproval: takes({ type: 'integer', minimum: 1 }, { type: 'string', enum: APPROVAL_ANSWERS }, optional(TEXT))
    .as<(approvalId: number, answer: ApprovalAnswer, reason?: string) => Promise<void>>(),
  /** Approvals still waiting (after a reload of the window, say). */
  pendingApprovals: takes().as<() => Promise<ApprovalView[]>>(),
  /** Opens the native folder dialog; undefined when the person cancels or there is none (browser mode). */
  pickFolder: takes().as<() => Promise<string | undefined>>(),
  /** Downloads the recommended model (or `uri`) into the models folder, then loads it; progress as model-progress events. */
  downloadModel: takes(optional({ type: 'string' })).as<(uri?: string) => Promise<string>>(),
  /** The person edited the plan: it is kept, and the model hears of it as a note on the next message (status: default todo). */
  setPlan: takes(SESSION_ID, { type: 'array', items: { type: 'object', required: ['text'], properties: {
    text: TEXT, status: { type: 'string', enum: PLAN_STATUSES },
  } } }).as<(id: number, items: { text: string; status?: PlanItem['status'] }[]) => Promise<void>>(),
  /** The local engine settings as saved (each 'auto' unless the person chose). */
  localSettings: takes().as<() => Promise<LocalSettings>>(),
  /**
   * Checks and saves the settings, then loads the app's model again with them. A value Keel cannot
   * use, or one that does not fit with the model, is refused in words and nothing changes.
   */
  setLocalSettings: takes({ type: 'object', properties: LOCAL_SETTINGS_TEXT }).as<(settings: LocalSettingsText) => Promise<LocalSettings>>(),
  /** The machine (backend, devices, free memory) and, for `model` (default: the app's), what a load would use and why. */
  doctor: takes(optional(PATH)).as<(model?: string) => Promise<DoctorReport>>(),
  /** A workspace's MCP servers (connecting those that may run); with a session, the tools waiting for the next one. */
  mcpServers: takes(PATH, optional(SESSION_ID)).as<(workspace: string, sessionId?: number) => Promise<McpServersView>>(),
  /** Approves the workspace's `.mcp.json` as shown (its hash), then starts its servers; a file changed since is refused. */
  approveMcpFile: takes(PATH, TEXT).as<(workspace: string, hash: string) => Promise<void>>(),
  restartMcpServer: takes(PATH, TEXT).as<(workspace: string, name: string) => Promise<void>>(),
  /** Trusts (or no longer trusts) a server's read-only hints. */
  trustMcpServer: takes(PATH, TEXT, { type: 'boolean' }).as<(workspace: string, name: string, trusted: boolean) => Promise<void>>(),
  // Model servers (issue 11): the picker's "Server (URL)".
  /** The models a server lists; a key given is kept for that URL (the OS keychain in the app). */
  serverModels: takes(TEXT, optional(TEXT)).as<(url: string, key?: string) => Promise<string[]>>(),
  /**
   * Checks the server's model and makes it the model new sessions use; with a session, moves that
   * session to it (the next request re-reads everything, recorded as "model switched").
   */
  useServerModel: takes(TEXT, TEXT, optional(SESSION_ID)).as<(url: string, model: string, sessionId?: number) => Promise<string>>(),
  // Hooks (issue 26): listed in the Servers tab, a workspace's file approved there (main/contract/hooks.ts).
  ...HOOKS_CONTRACT,
  // Checkpoints (issue 25): the Changes tab, its reverts, and what a rewind with files would do.
  ...CHECKPOINT_CALLS,
  // The price of a cache break (issue 36), shown before an action pays it, and the limit above which the app asks.
  ...PRICE_CALLS,
  // settings.json, each setting as its schema describes it (issue 32): the Settings panel's list.
  ...SETTINGS_CALLS,
  // Background shells (issue 33): the Processes tab lists them, shows one's output, stops one.
  ...SHELL_CALLS,
  // Custom slash commands (issue 34): the composer's list as the person types `/`.
  ...COMMAND_CALLS,
  // Which project files were read and which wait for approval (issue 34): the Servers tab's list.
  ...PROJECT_FILE_CALLS,
};

/** Every call the UI can make, as TypeScript sees it. */
export type KeelApi = { [M in keyof typeof CONTRACT]: SignatureOf<(typeof CONTRACT)[M]> };
export type KeelMethod = keyof KeelApi;

/** The method names as values: what the preload exposes, the clients build and main binds. */
export const METHODS = Object.keys(CONTRACT) as KeelMethod[];
