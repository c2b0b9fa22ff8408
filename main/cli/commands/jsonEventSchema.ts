/**
 * The shapes of `keel run --json`'s events (docs/json-events.md), as zod schemas: the one source
 * of each event's fields, which jsonEvents.ts writes and main/cli/run.test.ts checks the doc's examples against.
 */
import { z } from 'zod';
import { MODES } from '../../core/state/types.js';
import { SHELL_STATES } from '../../core/tools/shells.js';

/** A call as the model made it, with the id its result has. */
const ToolCall = z.strictObject({ type: z.literal('tool_call'), id: z.string(), name: z.string(), arguments: z.unknown() });

/*
 * Codex's typed items (`codex exec --json`, its exec_events.rs), names and fields as Codex spells
 * them, beside Keel's own tool_call and tool_result (which stay, so scripts written for either read
 * on): `id` is Keel's result id. codexItems.ts makes them.
 */
/** A bash command in the foreground: its output as the model got it, its exit code (null: stopped, timed out, refused). */
const CommandExecution = z.strictObject({
  type: z.literal('command_execution'), id: z.string(), command: z.string(), aggregated_output: z.string(), exit_code: z.int().nullable(),
  status: z.enum(['in_progress', 'completed', 'failed', 'declined']),
});
/** What an edit, write, multiedit or apply_patch changed, each file by its absolute path. */
const FileChange = z.strictObject({
  type: z.literal('file_change'), id: z.string(),
  changes: z.array(z.strictObject({ path: z.string(), kind: z.enum(['add', 'delete', 'update']) })), status: z.enum(['completed', 'failed']),
});
/** A call of an MCP server's tool (`mcp__SERVER__TOOL`), its result or error as the model got it. */
const McpToolCall = z.strictObject({
  type: z.literal('mcp_tool_call'), id: z.string(), server: z.string(), tool: z.string(), arguments: z.unknown(),
  result: z.strictObject({ content: z.array(z.strictObject({ type: z.literal('text'), text: z.string() })), structured_content: z.null() }).nullable(),
  error: z.strictObject({ message: z.string() }).nullable(),
  status: z.enum(['in_progress', 'completed', 'failed']),
});

export const JsonItem = z.discriminatedUnion('type', [
  /**
   * The person's message as sent (`text`, notes included), or the model's words of one reply. The
   * person's also apart: `words` as typed, `notes` each note Keel attached (the parts `text` is made of).
   */
  z.strictObject({
    type: z.literal('message'), role: z.enum(['user', 'assistant']), text: z.string(), words: z.string().optional(), notes: z.array(z.string()).optional(),
  }),
  ToolCall,
  /** The result as inserted into the request (bracket first); `kind` is hygiene's (full, stub, same, error, recall, change). */
  z.strictObject({ type: z.literal('tool_result'), id: z.string(), name: z.string(), kind: z.string(), text: z.string() }),
  /** Something Keel put into the conversation itself (a compaction's summary). */
  z.strictObject({ type: z.literal('note'), text: z.string() }),
  /** A call the person's approval was needed for and not given: its result says so. */
  z.strictObject({ type: z.literal('denial'), id: z.string(), name: z.string(), text: z.string() }),
  CommandExecution,
  FileChange,
  McpToolCall,
]);
export type Item = z.infer<typeof JsonItem>;
/** The items that start before their call ends: the call, and Codex's command and MCP call in progress. */
const StartedItem = z.discriminatedUnion('type', [ToolCall, CommandExecution, McpToolCall]);
export type StartedItem = z.infer<typeof StartedItem>;

const count = z.int().nonnegative();
export const Usage = z.strictObject({ input_tokens: count, cached_input_tokens: count, output_tokens: count });
export type Usage = z.infer<typeof Usage>;

/** Every event `--json` writes, one a line: docs/json-events.md documents them, and its examples are checked against this. */
export const JsonEvent = z.discriminatedUnion('type', [
  /** First: the session (new for `run`, resumed for `say`), where it works, on what, in which mode, with its fixed tool list (MCP tools included). */
  z.strictObject({
    type: z.literal('session.started'), session_id: z.int().positive(), workspace: z.string(), model: z.string(), engine: z.enum(['local', 'server']),
    mode: z.enum(MODES), tools: z.array(z.string()),
  }),
  z.strictObject({ type: z.literal('turn.started') }),
  z.strictObject({
    type: z.literal('request.completed'), request: z.int().positive(), prompt_tokens: count, reused_tokens: count, new_tokens: count,
    output_tokens: count, cause: z.string().optional(),
  }),
  /** A call starts: its item, with the id its result will have (a long call shows before it ends). */
  z.strictObject({ type: z.literal('item.started'), item: StartedItem }),
  z.strictObject({ type: z.literal('item.completed'), item: JsonItem }),
  z.strictObject({ type: z.literal('turn.completed'), usage: Usage }),
  z.strictObject({ type: z.literal('turn.failed'), error: z.strictObject({ message: z.string() }) }),
  /**
   * Last, always: the turn's outcome in one line, as Claude Code's `result` gives it: the answer (or
   * why it failed), its requests, its time and its usage (the subagents' own not counted).
   */
  z.strictObject({
    type: z.literal('result'), subtype: z.enum(['success', 'error']), is_error: z.boolean(), result: z.string(),
    session_id: z.int().positive(), num_turns: count, duration_ms: count, usage: Usage,
  }),
  /** A background shell of the session (bash `run_in_background`) started, or ended: its state and status line. */
  z.strictObject({ type: z.literal('shell.started'), id: z.string(), command: z.string(), state: z.literal('running'), status: z.string() }),
  z.strictObject({ type: z.literal('shell.ended'), id: z.string(), command: z.string(), state: z.enum(SHELL_STATES).exclude(['running']), status: z.string() }),
  /**
   * A subagent of the turn's task call (its own session) is waiting for a place, running, or has
   * ended: then with its requests' usage (its own cache figures, apart from the parent's).
   */
  z.strictObject({
    type: z.literal('subagent.state'), session_id: z.int().positive(), description: z.string(),
    state: z.enum(['waiting', 'running', 'answered', 'failed']), usage: Usage.optional(),
  }),
]);
export type JsonEvent = z.infer<typeof JsonEvent>;
