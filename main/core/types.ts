/**
 * The core's shared vocabulary: what tools return and what the session, hygiene, workspace and
 * permissions speak of. A leaf: it imports nothing, so anything in main/core may import it without
 * making an import circle (checked by `npm run lint`).
 */

export const MODES = ['ask', 'accept-edits', 'plan', 'auto'] as const;
/** The permission mode of a session. */
export type Mode = (typeof MODES)[number];

/** A JSON schema, in the subset the tools use (validated by validate.ts). */
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
/** What each mode lets run, in a line (the app's mode selector and an editor's mode list over ACP). */
export const MODE_HELP = {
  ask: 'Every edit and every command waits for you',
  'accept-edits': 'Edits in the workspace run; commands wait for you',
  plan: 'Reads and searches only; ends with a plan for you to approve',
  auto: 'Edits and commands run without asking',
} as const satisfies Record<Mode, string>;

export const PLAN_STATUSES = ['todo', 'doing', 'done'] as const;
export interface PlanItem { text: string; status: (typeof PLAN_STATUSES)[number] }

/**
 * A tool as a session offers it to the model: its name, long description and JSON schema. The
 * session's list of these is built once, kept with the session and sent byte for byte (spec §10.4).
 * `parameters` is whatever schema the tool has: a built-in's (JsonSchema, tools/schema.ts) or an MCP server's, as listed.
 */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: object;
}

/** A refusal or failure a tool reports to the model; its message names absolute paths. */
export class ToolError extends Error {}
