/**
 * `--json`: a turn as JSON Lines on standard output, one event a line (docs/json-events.md), modelled
 * on Codex's `exec --json` with Keel's cache figures. Nothing else is written to standard output;
 * progress and notices go to standard error.
 */
import { formatId } from '../../core/hygiene/ids.js';
import type { LoopEvent } from '../../core/turn/loop.js';
import { z } from 'zod';
import { MODES, type RequestRow } from '../../core/state/types.js';
import type { Writer } from '../io.js';
import { describeShell, SHELL_STATES, type ShellView } from '../../core/tools/shells.js';
import type { ChildState } from '../../core/turn/subagents.js';
import type { Session } from '../../core/session/session.js';
import { noteTexts } from '../../core/state/notes.js';
import { CodexItems, type McpToolOf } from './codexItems.js';

/** What the events read of the session: its id, workspace, mode and tools, and its turns (the message's parts). */
export type JsonSession = Pick<Session, 'id' | 'root' | 'mode' | 'tools' | 'turns'>;

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
const Usage = z.strictObject({ input_tokens: count, cached_input_tokens: count, output_tokens: count });

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

/** Writes a turn's events; `denied()` marks the next tool result as a call that was refused. */
export class JsonEvents {
  private text = '';
  private requests: RequestRow[] = [];
  private refused = false;
  /** Each running subagent's requests, by its session id. */
  private readonly children = new Map<number, RequestRow[]>();
  /** Whether a call was refused for want of an approval no one could give (exit 3). */
  needed = false;

  private readonly began = performance.now();

  private readonly codex: CodexItems;

  /**
   * `session`: the session the turn runs in (the result names it; its open turn holds the message's
   * parts); `mcpTool`: its MCP tools as their servers name them.
   */
  constructor(private readonly out: Writer, private readonly session: JsonSession, mcpTool?: McpToolOf) {
    this.codex = new CodexItems(session.root, mcpTool);
  }

  /** First: the session, where it works, on what, in which mode, with which tools. */
  started(engine: { model: string; kind: 'local' | 'server' }): void {
    const s = this.session;
    this.write({
      type: 'session.started', session_id: s.id, workspace: s.root, model: engine.model, engine: engine.kind, mode: s.mode, tools: s.tools.map((t) => t.name),
    });
  }

  write(event: JsonEvent): void {
    this.out.write(`${JSON.stringify(event)}\n`);
  }

  /** The person's answer was "no", or no one could be asked: the next result is a denial. */
  denied(): void {
    this.refused = true;
    this.needed = true;
  }

  event = (e: LoopEvent): void => {
    switch (e.type) {
      case 'message':
        this.write({ type: 'turn.started' });
        this.item({ type: 'message', role: 'user', text: e.sent, ...this.messageParts() });
        break;
      case 'text':
        this.text += e.delta;
        break;
      case 'request': {
        const r = e.request;
        this.requests.push(r);
        this.write({
          type: 'request.completed', request: r.id, prompt_tokens: r.promptTokens, reused_tokens: r.reusedTokens,
          new_tokens: r.newTokens, output_tokens: r.outputTokens, ...(r.cause ? { cause: r.cause } : {}),
        });
        this.flushText();
        break;
      }
      case 'tool-started': {
        this.write({ type: 'item.started', item: { type: 'tool_call', id: formatId(e.number), name: e.name, arguments: e.args ?? null } });
        const typed = this.codex.started(e);
        if (typed) this.write({ type: 'item.started', item: typed });
        break;
      }
      case 'tool': {
        const id = formatId(e.result.number);
        this.item({ type: 'tool_call', id, name: e.name, arguments: e.args ?? null });
        if (this.refused) this.item({ type: 'denial', id, name: e.name, text: e.result.text });
        else this.item({ type: 'tool_result', id, name: e.name, kind: e.result.kind, text: e.result.text });
        const typed = this.codex.completed({ ...e, number: e.result.number }, e.result, this.refused);
        if (typed) this.item(typed);
        this.refused = false;
        break;
      }
      case 'compacted':
        this.item({ type: 'note', text: `compacted: the history is now\n${e.text}` });
        break;
      case 'notice':
        break;
    }
  };

  /** A background shell of the session started or ended (Shells.onChange). */
  shell(s: ShellView): void {
    const common = { id: s.id, command: s.command, status: describeShell(s) };
    this.write(s.state === 'running' ? { type: 'shell.started', ...common, state: s.state } : { type: 'shell.ended', ...common, state: s.state });
  }

  /** A subagent's state changed, or one of its requests completed (ChildHost.onChild). */
  child(childId: number, description: string, change: { state: ChildState } | { event: LoopEvent }): void {
    if ('event' in change) {
      if (change.event.type === 'request') this.children.get(childId)?.push(change.event.request);
      return;
    }
    if (!this.children.has(childId)) this.children.set(childId, []);
    const ended = change.state === 'answered' || change.state === 'failed';
    const usage = ended ? { usage: usageOf(this.children.get(childId)!) } : {};
    if (ended) this.children.delete(childId);
    this.write({ type: 'subagent.state', session_id: childId, description, state: change.state, ...usage });
  }

  /** The turn ended with `answer`: its usage, summed over its requests, then the result. */
  completed(answer: string): void {
    this.flushText();
    this.write({ type: 'turn.completed', usage: usageOf(this.requests) });
    this.result(answer, false);
  }

  failed(message: string): void {
    this.flushText();
    this.write({ type: 'turn.failed', error: { message } });
    this.result(message, true);
  }

  private result(text: string, error: boolean): void {
    this.write({
      type: 'result', subtype: error ? 'error' : 'success', is_error: error, result: text, session_id: this.session.id,
      num_turns: this.requests.length, duration_ms: Math.round(performance.now() - this.began), usage: usageOf(this.requests),
    });
    this.requests = [];
  }

  /**
   * The person's message in its parts, as the session stored them for its open turn: the words as
   * typed and each note Keel attached (`text` is made of these; they are never parsed out of it).
   */
  private messageParts(): { words: string; notes: string[] } | Record<string, never> {
    const turn = this.session.turns().at(-1);
    return turn ? { words: turn.words ?? '', notes: noteTexts(turn.notes) } : {};
  }

  private item(item: Item): void {
    this.write({ type: 'item.completed', item });
  }

  private flushText(): void {
    if (this.text.trim() !== '') this.item({ type: 'message', role: 'assistant', text: this.text });
    this.text = '';
  }
}

/** Requests' usage, summed as Codex's turn.completed counts it. */
function usageOf(requests: readonly RequestRow[]): z.infer<typeof Usage> {
  const sum = (f: (r: RequestRow) => number) => requests.reduce((n, r) => n + f(r), 0);
  return { input_tokens: sum((r) => r.promptTokens), cached_input_tokens: sum((r) => r.reusedTokens), output_tokens: sum((r) => r.outputTokens) };
}
