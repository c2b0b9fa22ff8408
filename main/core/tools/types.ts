/**
 * What a tool is and what it returns. Tools return raw output; hygiene (main/core/hygiene) turns
 * it into the text inserted into the request. No tool formats its own bracket or caps itself.
 */
import type { ApprovalAnswer, ApprovalDecision } from '../permissions/approval.js';
import type { CommandAccess, CommandRunner } from './commandRunner.js';

export const TOOL_NAMES = [
  'read', 'write', 'edit', 'multiedit', 'apply_patch', 'list', 'glob', 'grep', 'search', 'bash',
  'recall', 'plan_write', 'plan_update', 'plan_submit',
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/** A JSON schema, in the subset the tools use (validated by hygiene/validate.ts). */
export interface JsonSchema {
  type: 'object' | 'string' | 'integer' | 'number' | 'boolean' | 'array';
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: readonly string[];
  items?: JsonSchema;
  enum?: readonly string[];
  minimum?: number;
}

/** A file's content as a tool sees it. */
export interface FileText {
  absPath: string;
  raw: Buffer;
  /** Decoded UTF-8, BOM removed. */
  text: string;
  bom: boolean;
  /** Full SHA-256 hex of the raw bytes: the only judge of "unchanged". */
  hash: string;
}

export interface FileChange {
  pathGiven: string;
  absPath: string;
  action: 'created' | 'modified' | 'deleted' | 'unchanged';
  /** Text before and after, line endings as LF, BOM removed (for the diff); '' when absent. */
  before: string;
  after: string;
  /** Full SHA-256 of the new raw bytes ('' for a deleted file). */
  hash: string;
}

export interface StoredBody {
  number: number;
  body: string;
}

/**
 * Content the model cannot read as text (an MCP tool's image, a binary resource): its result's text
 * describes it, and it is stored in full with the result.
 */
export interface Attachment {
  mimeType: string;
  data: Buffer;
  /** Where it came from, when it has an address (a resource's URI). */
  uri?: string;
}

export type RawOutput =
  /** `lines` are the shown lines, unnumbered, from line `start` to `end` of `total`. */
  | { kind: 'read'; pathGiven: string; absPath: string; hash: string; total: number; start: number; end: number; lines: string[] }
  | { kind: 'text'; body: string; attachments?: Attachment[] }
  | { kind: 'change'; files: FileChange[] }
  /** `label`: the id as given, normalised to start with '#'; `target` undefined if never given. */
  | { kind: 'recall'; label: string; target?: StoredBody; offset: number; limit: number }
  | { kind: 'error'; message: string };

/** A plan item's states, in order; a value so the UI contract and plan_write check the same list. */
export const PLAN_STATUSES = ['todo', 'doing', 'done'] as const;
export interface PlanItem { text: string; status: (typeof PLAN_STATUSES)[number] }

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
  /** What the gate let this call do: a command runs with this access (read-only when unset). */
  access?: CommandAccess;
  /** Work out the change without writing anything: what an approval shows before it happens. */
  dryRun?: boolean;
}

/**
 * A tool as a session offers it to the model: its name, long description and JSON schema. The
 * session's list of these is built once, kept with the session and sent byte for byte (spec §10.4).
 * `parameters` is whatever schema the tool has: a built-in's (the subset above) or an MCP server's, as listed.
 */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: object;
}

export interface Tool<A = Record<string, unknown>> {
  name: ToolName;
  /** The long description is prompts/tools/NAME.md; this is the first line, for lists. */
  parameters: JsonSchema;
  run(args: A, ctx: ToolContext): Promise<RawOutput>;
}

/** A refusal or failure a tool reports to the model; its message names absolute paths. */
export class ToolError extends Error {}
