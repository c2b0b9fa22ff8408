/**
 * `--json`: a turn as JSON Lines on standard output, one event a line (docs/json-events.md), modelled
 * on Codex's `exec --json` with Keel's cache figures. Nothing else is written to standard output;
 * progress and notices go to standard error.
 */
import { formatId } from '../../core/hygiene/ids.js';
import type { LoopEvent } from '../../core/turn/loop.js';
import { z } from 'zod';
import type { RequestRow } from '../../core/state/types.js';
import type { Writer } from '../io.js';
import { describeShell, SHELL_STATES, type ShellView } from '../../core/tools/shells.js';
import type { ChildState } from '../../core/turn/subagents.js';

export const JsonItem = z.discriminatedUnion('type', [
  /** The person's message as sent (notes included), or the model's words of one reply. */
  z.strictObject({ type: z.literal('message'), role: z.enum(['user', 'assistant']), text: z.string() }),
  z.strictObject({ type: z.literal('tool_call'), id: z.string(), name: z.string(), arguments: z.unknown() }),
  /** The result as inserted into the request (bracket first); `kind` is hygiene's (full, stub, same, error, recall, change). */
  z.strictObject({ type: z.literal('tool_result'), id: z.string(), name: z.string(), kind: z.string(), text: z.string() }),
  /** Something Keel put into the conversation itself (a compaction's summary). */
  z.strictObject({ type: z.literal('note'), text: z.string() }),
  /** A call the person's approval was needed for and not given: its result says so. */
  z.strictObject({ type: z.literal('denial'), id: z.string(), name: z.string(), text: z.string() }),
]);
export type Item = z.infer<typeof JsonItem>;

const count = z.int().nonnegative();
const Usage = z.strictObject({ input_tokens: count, cached_input_tokens: count, output_tokens: count });

/** Every event `--json` writes, one a line: docs/json-events.md documents them, and its examples are checked against this. */
export const JsonEvent = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('session.started'), session_id: z.int().positive(), workspace: z.string(), model: z.string(), engine: z.enum(['local', 'server']) }),
  z.strictObject({ type: z.literal('turn.started') }),
  z.strictObject({
    type: z.literal('request.completed'), request: z.int().positive(), prompt_tokens: count, reused_tokens: count, new_tokens: count,
    output_tokens: count, cause: z.string().optional(),
  }),
  /** A call starts: its item, with the id its result will have (a long call shows before it ends). */
  z.strictObject({ type: z.literal('item.started'), item: JsonItem.options[1] }),
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

  /** `sessionId`: the session the turn runs in (the result names it). */
  constructor(private readonly out: Writer, private readonly sessionId: number) {}

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
        this.item({ type: 'message', role: 'user', text: e.sent });
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
      case 'tool-started':
        this.write({ type: 'item.started', item: { type: 'tool_call', id: formatId(e.number), name: e.name, arguments: e.args ?? null } });
        break;
      case 'tool': {
        const id = formatId(e.result.number);
        this.item({ type: 'tool_call', id, name: e.name, arguments: e.args ?? null });
        if (this.refused) this.item({ type: 'denial', id, name: e.name, text: e.result.text });
        else this.item({ type: 'tool_result', id, name: e.name, kind: e.result.kind, text: e.result.text });
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
      type: 'result', subtype: error ? 'error' : 'success', is_error: error, result: text, session_id: this.sessionId,
      num_turns: this.requests.length, duration_ms: Math.round(performance.now() - this.began), usage: usageOf(this.requests),
    });
    this.requests = [];
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
