import crypto from 'node:crypto';
import fs from 'node:fs';
import type { ChatWrapper, LlamaContextSequence } from 'node-llama-cpp';
import type { Inserted } from '../core/hygiene/types.js';
import { stableJson } from '../core/hygiene/stableJson.js';
import { readPrompt } from '../core/prompts/buildSystemPrompt.js';
import type { Session } from '../core/session/session.js';
import type { BreakCause, Mode, ReplyCall, RequestRow, SessionStore } from '../core/session/types.js';
import type { ToolRegistry } from '../core/tools/registry.js';
import { requestHistory, toolFunctions } from './history.js';
import type { LoadedModel } from './model.js';
import { runRequest, type RequestResult, type Script } from './request.js';
import { replyFormat, type ReplyFormat } from './replyFormat.js';
import { callSyntax, type CallSyntax } from './toolCalls.js';
import { renderPrompt, sessionWrapper } from './wrapper.js';

export type AgentEvent =
  | { type: 'message'; sent: string }
  | { type: 'text'; delta: string }
  | { type: 'tool'; name: string; args: unknown; result: Inserted }
  | { type: 'request'; request: RequestRow }
  | { type: 'compacted'; text: string };

export interface AgentOptions {
  session: Session;
  store: SessionStore;
  tools: ToolRegistry;
  promptsDir: string;
  model: LoadedModel;
  /** Scripted replies (tests and benchmarks): each request's reply, sampled exactly. */
  script?: Script;
  maxReplyTokens?: number;
  maxSteps?: number;
  temperature?: number;
  /** Compact before a turn once the prompt would fill this share of the context. */
  compactAt?: number;
  /** Where the KV state is saved after each turn, so a resumed session need not re-read. */
  stateFile?: string;
  onEvent?: (event: AgentEvent) => void;
}

/** The same call this many times in a row is refused; twice as many ends the turn. */
const REPEAT_LIMIT = 4;

/** The context would overflow: Keel compacts rather than letting old history be dropped. */
export class ContextFullError extends Error {}

/**
 * The agent loop on a real model: renders the session's history with the model's own template,
 * reuses the KV cache as far as the prompt is unchanged, runs the tools the model calls through
 * the core, and records every request's cache use with the cause of any loss.
 */
export class Agent {
  private sequence: LlamaContextSequence;
  private wrapper?: { key: string; wrapper: ChatWrapper; syntax: CallSyntax; format: ReplyFormat };
  private pendingCause?: BreakCause;
  /** What the previous request left in the cache, when that cache is gone (switch, resume). */
  private lostCache = 0;
  /** Where the previous request's reply began: a loss after it is the reply's, not the template's. */
  private lastReplyStart = Number.POSITIVE_INFINITY;

  constructor(private o: AgentOptions) {
    this.sequence = this.newSequence(o.model);
    if (o.session.history().length > 0 || o.session.epoch > 0) this.pendingCause = 'resumed without cache';
  }

  private newSequence(model: LoadedModel): LlamaContextSequence {
    return model.context.getSequence({
      contextShift: {
        strategy: () => {
          throw new ContextFullError('The context is full; Keel compacts instead of dropping earlier history.');
        },
      },
    });
  }

  /** Loads the KV state saved for this session, if it was made by this very model file. */
  async restoreState(): Promise<boolean> {
    const file = this.o.stateFile;
    if (!file || !fs.existsSync(`${file}.json`)) return false;
    const meta = JSON.parse(fs.readFileSync(`${file}.json`, 'utf8')) as { identity: string; pendingCause?: BreakCause };
    if (meta.identity !== this.o.model.identity) return false;
    await this.sequence.loadStateFromFile(file, { acceptRisk: true });
    this.pendingCause = meta.pendingCause;
    return true;
  }

  private async saveState(): Promise<void> {
    const file = this.o.stateFile;
    if (!file) return;
    await this.sequence.saveStateToFile(file);
    const meta = { identity: this.o.model.identity, tokens: this.sequence.nextTokenIndex, pendingCause: this.pendingCause };
    fs.writeFileSync(`${file}.json`, JSON.stringify(meta));
  }

  get session(): Session {
    return this.o.session;
  }

  get model(): LoadedModel {
    return this.o.model;
  }

  /** The person's message: the loop runs until the model answers without a tool call. */
  async send(words: string, opts: { date?: string; mode?: Mode; signal?: AbortSignal } = {}): Promise<string> {
    if (this.promptTokens() > (this.o.compactAt ?? 0.75) * this.sequence.contextSize) await this.compact(opts.signal);
    const { sent } = this.o.session.userMessage(words, opts);
    this.emit({ type: 'message', sent });
    try {
      return await this.loop(opts.signal);
    } finally {
      // The turn ends however the loop ended (an answer, a stop, an error): nothing is left half-open.
      this.o.session.endReply();
      await this.saveState();
    }
  }

  private async loop(signal?: AbortSignal): Promise<string> {
    let last = '';
    let repeats = 0;
    for (let step = 0; step < (this.o.maxSteps ?? 50); step++) {
      const r = await this.request('turn', undefined, signal, step === 0 ? 'person' : 'results');
      const parsed = this.current().format.read(r.text);
      if (parsed.calls.length === 0) {
        this.o.session.recordReply(parsed.words, [], parsed.raw);
        return parsed.words;
      }
      const calls: ReplyCall[] = [];
      for (const call of parsed.calls) {
        const signature = `${call.name} ${stableJson(call.args ?? null)}`;
        repeats = signature === last ? repeats + 1 : 1;
        last = signature;
        const problem = call.problem ?? (repeats >= REPEAT_LIMIT
          ? `this is the same ${call.name} call ${repeats} times in a row; its result is above. Answer, or call something else.`
          : undefined);
        const result = problem === undefined
          ? await this.o.session.callTool(call.name, call.args, signal)
          : await this.o.session.rejectCall(call.name, call.args ?? null, problem);
        this.o.store.setResultTokens(this.o.session.id, result.number, this.o.model.model.tokenize(result.text).length);
        calls.push({ name: call.name, args: call.args ?? null, number: result.number, raw: call.raw });
        this.emit({ type: 'tool', name: call.name, args: call.args, result });
      }
      this.o.session.recordReply(parsed.words, calls, parsed.raw);
      if (signal?.aborted || repeats >= 2 * REPEAT_LIMIT) break;
    }
    return '';
  }

  /**
   * Spec §7: the summary is asked for as the next turn of the same conversation — same system
   * prompt, same tools, every message as it was — plus prompts/tasks/compact.md. A tool call in
   * the reply is not run; the text before it is the summary. The request is not a turn.
   */
  async compact(signal?: AbortSignal): Promise<string> {
    const ask = readPrompt(this.o.promptsDir, 'tasks/compact.md').replace('{{transcript}}', '').trim();
    const r = await this.request('compaction', ask, signal);
    if (r.stoppedBy === 'stopped' || r.stoppedBy === 'limit') {
      throw new Error(`Compaction was ${r.stoppedBy === 'stopped' ? 'stopped' : 'cut off at the token limit'}; the session is unchanged.`);
    }
    const text = this.o.session.compact(this.current().format.read(r.text).words);
    this.pendingCause = 'compaction';
    await this.saveState();
    this.emit({ type: 'compacted', text });
    return text;
  }

  /** Moves the session to another model: the prompt is rebuilt, and the next request is a full read. */
  async switchModel(model: LoadedModel): Promise<void> {
    this.lostCache = this.sequence.nextTokenIndex;
    this.sequence.dispose();
    this.o.model = model;
    this.sequence = this.newSequence(model);
    this.o.session.rebuildPrompt({ model: model.path });
    this.pendingCause = 'model switched';
  }

  undo(): void {
    this.o.session.undo();
    this.pendingCause = 'undo';
  }

  rewindTo(seq: number): void {
    this.o.session.rewindTo(seq);
    this.pendingCause = 'rewind';
  }

  /** Takes back the last turn and sends its message again. */
  async regenerate(opts: { signal?: AbortSignal } = {}): Promise<string> {
    const turn = this.o.session.undo();
    this.pendingCause = 'regenerate';
    return this.send(turn.words ?? '', { signal: opts.signal });
  }

  requests(): RequestRow[] {
    return this.o.store.listRequests(this.o.session.id);
  }

  async dispose(): Promise<void> {
    this.sequence.dispose();
  }

  private emit(event: AgentEvent): void {
    this.o.onEvent?.(event);
  }

  /** The model's wrapper and its call syntax, made again only when the model or the prompt date changes. */
  private current(): { wrapper: ChatWrapper; syntax: CallSyntax; format: ReplyFormat } {
    const key = `${this.o.model.path}|${this.o.session.promptDate}`;
    if (this.wrapper?.key !== key) {
      const wrapper = sessionWrapper(this.o.model.model, this.o.session.promptDate);
      const syntax = callSyntax(wrapper);
      this.wrapper = { key, wrapper, syntax, format: replyFormat(wrapper, syntax) };
    }
    return this.wrapper;
  }

  /** How this model writes a tool call (used to script replies in tests and benchmarks). */
  syntax(): CallSyntax {
    return this.current().syntax;
  }

  /** The session's own tool list, kept with it: the same bytes on every request (spec §10.4). */
  private functions() {
    return toolFunctions(this.o.session.tools);
  }

  private render(extraUser?: string) {
    const { wrapper, format } = this.current();
    const { history, results } = requestHistory(this.o.session, format, extraUser);
    const functions = this.functions();
    return { ...renderPrompt(wrapper, history, functions, results), functions };
  }

  /** The prompt a request would send now, as text (special tokens as their text). */
  promptText(): string {
    return this.render().text.toString();
  }

  /** The prompt's length in tokens if a request were made now. */
  promptTokens(): number {
    return this.render().text.tokenize(this.o.model.model.tokenizer).length;
  }

  private async request(
    kind: RequestRow['kind'], extraUser: string | undefined, signal?: AbortSignal, answers?: RequestRow['answers'],
  ): Promise<RequestResult> {
    const { text, stopTriggers, continueOn, functions } = this.render(extraUser);
    const maxTokens = this.o.maxReplyTokens ?? 1024;
    const r = await runRequest({
      sequence: this.sequence,
      model: this.o.model.model,
      prompt: text,
      stopTriggers,
      continueOn,
      format: this.current().format,
      maxTokens,
      temperature: this.o.temperature ?? 0.2,
      signal,
      onText: (delta) => this.emit({ type: 'text', delta }),
      scripted: this.o.script?.next(),
    });
    const cachedBefore = Math.max(r.cachedBefore, this.lostCache);
    const lost = r.reusedTokens < cachedBefore;
    const cause = lost || this.pendingCause ? this.pendingCause ?? this.guessCause(r) : undefined;
    const request = this.o.store.insertRequest({
      sessionId: this.o.session.id,
      kind,
      model: this.o.model.path,
      promptTokens: r.promptTokens,
      reusedTokens: r.reusedTokens,
      newTokens: r.newTokens,
      outputTokens: r.outputTokens,
      cachedBefore,
      prefillMs: r.prefillMs,
      generationMs: r.generationMs,
      systemSha: sha256(this.o.session.systemPrompt),
      toolsSha: sha256(JSON.stringify(functions)),
      firstDiff: cause ? r.reusedTokens : undefined,
      cause,
      turn: this.o.session.history().at(-1)?.seq,
      answers,
      contextSize: this.sequence.contextSize,
      createdAt: new Date().toISOString(),
    });
    this.pendingCause = undefined;
    this.lostCache = 0;
    this.lastReplyStart = r.promptTokens;
    this.emit({ type: 'request', request });
    return r;
  }

  /**
   * A loss nobody asked for: the same text inside the last reply tokenized otherwise (a reply cut
   * off mid-character, say); else a chat dropped earlier results, or the template re-rendered.
   */
  private guessCause(r: RequestResult): BreakCause {
    if (r.rewritten === false && r.reusedTokens >= this.lastReplyStart) return 'reply re-tokenized';
    if (this.o.session.kind === 'chat' && r.reusedTokens < this.lastReplyStart) return 'chat reply results not carried';
    return 'template re-rendered earlier text';
  }
}

function sha256(text: string): string {
  return crypto.createHash('sha256').update(text).digest('hex');
}
