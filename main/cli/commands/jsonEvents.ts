/**
 * `--json`: a turn as JSON Lines on standard output, one event a line (docs/json-events.md), modelled
 * on Codex's `exec --json` with Keel's cache figures. Nothing else is written to standard output;
 * progress and notices go to standard error.
 */
import { formatId } from '../../core/hygiene/ids.js';
import type { LoopEvent } from '../../core/turn/loop.js';
import type { RequestRow } from '../../core/state/types.js';
import type { Writer } from '../io.js';
import { describeShell, type ShellView } from '../../core/tools/shells.js';
import type { ChildState } from '../../core/turn/subagents.js';
import type { Session } from '../../core/session/session.js';
import { noteTexts } from '../../core/state/notes.js';
import { CodexItems, type McpToolOf } from './codexItems.js';
import type { Item, JsonEvent, Usage } from './jsonEventSchema.js';

/** What the events read of the session: its id, workspace, mode and tools, and its turns (the message's parts). */
export type JsonSession = Pick<Session, 'id' | 'root' | 'mode' | 'tools' | 'turns'>;


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
function usageOf(requests: readonly RequestRow[]): Usage {
  const sum = (f: (r: RequestRow) => number) => requests.reduce((n, r) => n + f(r), 0);
  return { input_tokens: sum((r) => r.promptTokens), cached_input_tokens: sum((r) => r.reusedTokens), output_tokens: sum((r) => r.outputTokens) };
}
