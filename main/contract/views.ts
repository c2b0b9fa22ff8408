/**
 * What the UI sees: the views main sends back from calls and pushes in events. Types only; each is
 * built in main (main/app) and mirrored by the renderer, which never computes them itself.
 */
import type { ElidedMark } from '../core/hygiene/cap.js';
import type { ApprovalRequest } from '../core/permissions/approval.js';
import type { Mode, SessionKind } from '../core/state/types.js';
import type { PlanItem } from '../core/tools/types.js';
import type { LocalSetup } from '../llm/localSettings.js';
import type { HookRunView } from './hooks.js';

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
  kind: 'date' | 'mode' | 'instructions' | 'plan' | 'server' | 'hook' | 'reverted';
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
  /** The PreToolUse and PostToolUse hooks that ran for the call, in order (main/contract/hooks.ts). */
  hooks?: HookRunView[];
  /** A `task` call's subagent: its own stored session (openSession and requests take its id), from the result's attachment. */
  subagent?: SubagentLink;
}

/** Where a subagent's transcript and cache rows are: the child session a `task` result names. */
export interface SubagentLink {
  sessionId: number;
}

export type ReplyPart = { type: 'text'; text: string } | { type: 'tool'; tool: ToolView };

export interface TurnView {
  seq: number;
  status: 'open' | 'done' | 'undone';
  /** The person's own words; notes are separate and never look like them. */
  words?: string;
  notes: NoteView[];
  parts: ReplyPart[];
  /** The person stopped this turn's reply (Stop, Ctrl-C): what it holds was cut there. */
  stopped?: boolean;
}

export interface SessionView {
  summary: SessionSummary;
  /** The summary and table that replaced the history at the last compaction, if any. */
  compacted?: string;
  turns: TurnView[];
  plan: PlanItem[];
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
  /** The app's model this file could draft for (the draftModel setting): smaller, with its very tokenizer (llm/draft.ts). */
  draftFor?: string;
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
  /** Ask before a cache break that takes longer than this many seconds (settings.json); absent: never ask. */
  askAboveSeconds?: number;
}

/** An MCP configuration file of a workspace: the person's own (`user`) or the workspace's `.mcp.json`. */
export interface McpFileView {
  file: string;
  scope: 'user' | 'workspace' | 'given';
  exists: boolean;
  /** SHA-256 of its content and of the workspace files its entries run: what approveMcpFile approves. */
  hash: string;
  /** A workspace file whose servers wait for the person's approval of it as it is now. */
  needsApproval: boolean;
  /** It cannot be used at all (not JSON, no `mcpServers`, not a regular file…): nothing runs, nothing can be approved. */
  broken?: boolean;
  /** The workspace files its entries run (`server.mjs` of `node server.mjs`), relative to the workspace: the approval covers them. */
  runs?: string[];
  servers: string[];
  /** What is wrong with it or an entry (each left out), naming the file. */
  problems: string[];
}

export interface McpServerView {
  name: string;
  scope: 'user' | 'workspace' | 'given';
  file: string;
  /** The command line, or the URL and transport, as written (variables not filled in). */
  launch: string;
  /** What it will receive (env, headers, arguments with variables), as written → filled in with each variable's value masked. */
  receives?: string[];
  /** The package Keel fetches for it before its first start (`npx -y PKG`), in words. */
  fetches?: string;
  /** A stdio server's own writable folder, kept across sessions (its XDG folders point there). */
  dataFolder?: string;
  /** While its package is fetched: what is happening, in words. */
  preparing?: string;
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
