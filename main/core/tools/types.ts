/**
 * What a tool is and what it returns. Tools return raw output; hygiene (main/core/hygiene) turns
 * it into the text inserted into the request. No tool formats its own bracket or caps itself.
 */
import type { ApprovalAnswer, ApprovalDecision } from '../approvalAnswers.js';
import type { JsonSchema, RawOutput, PlanItem } from '../types.js';
import type { ToolAccess } from './access.js';
import type { CommandAccess, CommandRunner } from './commandRunner.js';
import type { FileSource } from './fileSource.js';
import type { SessionShells } from './shells.js';

// The shared vocabulary lives in the leaf module ../types.ts; re-exported for the tools' importers.
export { ToolError } from '../types.js';
export type { Attachment, FileChange, FileText, JsonSchema, PlanItem, RawOutput, StoredBody, ToolSpec } from '../types.js';

export const TOOL_NAMES = [
  'read', 'write', 'edit', 'multiedit', 'apply_patch', 'list', 'glob', 'grep', 'search', 'bash',
  'recall', 'plan_write', 'plan_update', 'plan_submit', 'bash_output', 'kill_shell', 'task', 'skill',
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/** What a tool may use of its session. Passed in, so tools run anywhere (DESIGN: pass I/O in). */
export interface ToolContext {
  /** The workspace root, absolute and resolved (realpath). */
  root: string;
  /** The hash the session last saw for a file (read or written), if any: edits refuse a conflict. */
  knownHash(absPath: string): string | undefined;
  /** A stored result's body by its number, across the whole session. */
  storedBody(number: number): string | undefined;
  /** The session's plan (plan tools); `setPlan` replaces it. */
  plan: PlanItem[];
  setPlan(items: PlanItem[]): void;
  /** The permission mode now. */
  mode: string;
  /**
   * Asks the person to approve something that is not a file change (a plan): the answer, or
   * undefined when no one can be asked. `allow-session` approves and lets edits through from now on.
   */
  askPerson?(preview: string, reason: string): Promise<ApprovalAnswer | ApprovalDecision | undefined>;
  /** The person's answer can switch the mode (approving a plan ends plan mode). */
  setMode?(mode: 'ask' | 'accept-edits'): void;
  signal?: AbortSignal;
  /** Runs bash's commands (the OS sandbox); without one they run unsandboxed and the gate asks for each that is not read-only. */
  commands?: CommandRunner;
  /** The session's background shells (bash `run_in_background`); without them, none can start. */
  shells?: SessionShells;
  /** Runs the `task` tool's subagents (core/turn/subagents.ts); without it, none can run. */
  subagents?: SubagentRunner;
  /** What the gate let this call do: a command runs with this access (read-only when unset). */
  access?: CommandAccess;
  /** Files the person's deny rules keep from this tool (folder-walking readers leave them out); unset when none. */
  hidden?: (absPath: string) => boolean;
  /** Work out the change without writing anything: what an approval shows before it happens. */
  dryRun?: boolean;
  /** The editor's buffers the file tools read and write (keel acp); the disk when unset. */
  files?: FileSource;
}

/** What the `task` tool asks of a subagent: what it is for, the prompt it is given, and which of the defined agents runs it. */
export interface SubagentRequest {
  description: string;
  prompt: string;
  /** An agent's name (`.claude/agents/NAME.md` and Keel's own place); the read-only general one when absent. */
  agent?: string;
}

/** Runs a session's subagents: each a session of its own; the answer is its final reply. A refusal or failure is a ToolError. */
export interface SubagentRunner {
  run(request: SubagentRequest, signal?: AbortSignal): Promise<{ answer: string; sessionId: number }>;
}

export interface Tool<A = Record<string, unknown>> {
  name: ToolName;
  /** Calls of it next to each other in one reply run at the same time (their results still go in in order). */
  concurrent?: boolean;
  /** The long description is prompts/tools/NAME.md; this is the first line, for lists. */
  parameters: JsonSchema;
  /** What it may do, and which arguments name the files it touches: the gate and the approval read this. */
  access: ToolAccess;
  run(args: A, ctx: ToolContext): Promise<RawOutput>;
}
