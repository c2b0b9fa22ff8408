import { loopConfig } from '../config.js';
import type { Conversation, Engine, Generation, SaveOptions } from '../engine/types.js';
import type { Inserted } from '../hygiene/types.js';
import { stableJson } from '../hygiene/stableJson.js';
import { readPrompt } from '../prompts/buildSystemPrompt.js';
import { sha256 } from '../hash.js';
import { buildConversation } from './conversation.js';
import type { Session } from './session.js';
import type { BreakCause, Mode, ReplyCall, RequestRow, SessionStore } from './types.js';

export type LoopEvent =
  | { type: 'message'; sent: string }
  | { type: 'text'; delta: string }
  | { type: 'tool'; name: string; args: unknown; result: Inserted }
  | { type: 'request'; request: RequestRow }
  | { type: 'compacted'; text: string }
  /** Something the person should know that is not part of the conversation (a saved state not used, say). */
  | { type: 'notice'; text: string };

export interface LoopOptions {
  session: Session;
  store: SessionStore;
  engine: Engine;
  promptsDir: string;
  /** Where the engine's cache is saved between runs, so a resumed session need not re-read. */
  stateFile?: string;
  /** Replies to force, one per request (tests and benchmarks drive the real engine with them). */
  script?: Script;
  maxReplyTokens?: number;
  maxSteps?: number;
  temperature?: number;
  /** Compact before a turn once the prompt would fill this share of the context. */
  compactAt?: number;
  onEvent?: (event: LoopEvent) => void;
}

/** Scripted replies (teacher forcing): each request's reply is given as the engine's text. */
export interface Script {
  next(): string | undefined;
}

/**
 * What the person is told about a reply that is not a plain answer: an empty one, or one cut before
 * its end (inside a call, whose call is then not run). The reply itself is stored as generated.
 */
export function unfinished(r: Generation): string | undefined {
  const cutCall = r.reply.raw !== undefined && r.reply.raw !== r.reply.words && r.reply.calls.length === 0 && r.stoppedBy !== 'end' && r.stoppedBy !== 'trigger';
  const how = r.stoppedBy === 'limit' ? 'cut off at the reply token limit' : r.stoppedBy === 'stopped' ? 'stopped' : 'ended by the model';
  if (cutCall) return `The model's reply was ${how} inside a tool call; the call was not run.`;
  if (r.text.trim() === '' && r.reply.words === '') return `The model's reply was empty (${how}).`;
  return undefined;
}

/** The context would overflow: Keel compacts rather than letting old history be dropped. */
export class ContextFullError extends Error {}

/**
 * The agent loop, on any Engine: a person's message, then requests until the model answers without
 * a tool call — each call run through the session (validation, permissions, hygiene), each request
 * recorded with its cache use and the cause of any loss. Keel's own history changes (compaction,
 * undo, a switch) name their cause; a loss nobody asked for is the engine's to explain.
 */
export class AgentLoop {
  private pendingCause?: BreakCause;
  /** What the previous request left in the cache, when that cache is gone (switch, resume). */
  private lostCache = 0;
  /** Where the previous request's reply began: a loss after it is the reply's, not the template's. */
  private lastReplyStart = Number.POSITIVE_INFINITY;
  /**
   * What the last turn's final request measured — its prompt and its reply, in tokens — and the
   * history it was measured on. While the history is that one, the compaction check before the next
   * turn is this plus the person's message, with no second render of the whole history (issue 10).
   */
  private measured?: { tokens: number; key: string; system: string };

  constructor(private o: LoopOptions) {
    if (o.session.history().length > 0 || o.session.epoch > 0) this.pendingCause = 'resumed without cache';
  }

  get session(): Session {
    return this.o.session;
  }

  get engine(): Engine {
    return this.o.engine;
  }

  /** Uses the state saved for this session when the engine can; says why not otherwise. */
  async restoreState(): Promise<boolean> {
    if (!this.o.stateFile) return false;
    const r = await this.o.engine.restoreState(this.o.stateFile);
    if (r.restored) {
      this.pendingCause = r.meta.pendingCause;
      return true;
    }
    if (r.reason) {
      this.pendingCause = 'saved state unusable';
      this.emit({ type: 'notice', text: `The saved cache of session ${this.o.session.id} was not used: ${r.reason}. The next request reads everything again.` });
    }
    return false;
  }

  /** Saves the engine's cache for this session (at idle, before its cache is given away, at quit). */
  async saveState(options: SaveOptions = {}): Promise<void> {
    if (this.o.stateFile) await this.o.engine.saveState(this.o.stateFile, { pendingCause: this.pendingCause }, options);
  }

  /** The person's message: the loop runs until the model answers without a tool call. */
  async send(words: string, opts: { date?: string; mode?: Mode; signal?: AbortSignal } = {}): Promise<string> {
    if (await this.nextPromptTokens(words) > (this.o.compactAt ?? loopConfig.compactAt) * this.o.engine.contextSize) await this.compact(opts.signal);
    this.measured = undefined;
    const { sent } = this.o.session.userMessage(words, opts);
    this.emit({ type: 'message', sent });
    try {
      return await this.loop(opts.signal);
    } finally {
      // The turn ends however the loop ended (an answer, a stop, an error): nothing is left half-open.
      this.o.session.endReply();
    }
  }

  private async loop(signal?: AbortSignal): Promise<string> {
    const limit = loopConfig.repeatLimit;
    let last = '';
    let repeats = 0;
    for (let step = 0; step < (this.o.maxSteps ?? loopConfig.maxSteps); step++) {
      const r = await this.request('turn', undefined, signal, step === 0 ? 'person' : 'results');
      const { reply } = r;
      if (reply.calls.length === 0) {
        this.o.session.recordReply(reply.words, [], reply.raw);
        // A server that reports no prompt size leaves the next check to a full count.
        if (r.usage.promptTokens > 0) this.measured = { tokens: r.usage.promptTokens + r.usage.outputTokens, key: this.historyKey(), system: this.o.session.systemPrompt };
        const why = unfinished(r);
        if (why) this.emit({ type: 'notice', text: why });
        return reply.words;
      }
      const calls: ReplyCall[] = [];
      for (const call of reply.calls) {
        const signature = `${call.name} ${stableJson(call.args ?? null)}`;
        repeats = signature === last ? repeats + 1 : 1;
        last = signature;
        const problem = call.problem ?? (repeats >= limit
          ? `this is the same ${call.name} call ${repeats} times in a row; its result is above. Answer, or call something else.`
          : undefined);
        const result = problem === undefined
          ? await this.o.session.callTool(call.name, call.args, signal)
          : await this.o.session.rejectCall(call.name, call.args ?? null, problem);
        this.o.store.setResultTokens(this.o.session.id, result.number, await this.o.engine.countTokens(result.text));
        calls.push({ name: call.name, args: call.args ?? null, number: result.number, raw: call.raw });
        this.emit({ type: 'tool', name: call.name, args: call.args, result });
      }
      this.o.session.recordReply(reply.words, calls, reply.raw);
      if (signal?.aborted || repeats >= 2 * limit) break;
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
    const text = this.o.session.compact(r.reply.words);
    this.pendingCause = 'compaction';
    this.measured = undefined;
    this.emit({ type: 'compacted', text });
    return text;
  }

  /** Moves the session to another engine: the prompt is rebuilt, and the next request is a full read. */
  async switchEngine(engine: Engine): Promise<void> {
    this.lostCache = this.o.engine.cachedTokens();
    await this.o.engine.dispose();
    this.o.engine = engine;
    this.o.session.rebuildPrompt({ model: engine.id });
    this.pendingCause = 'model switched';
    this.measured = undefined;
  }

  undo(): void {
    this.o.session.undo();
    this.pendingCause = 'undo';
    this.measured = undefined;
  }

  rewindTo(seq: number): void {
    this.o.session.rewindTo(seq);
    this.pendingCause = 'rewind';
    this.measured = undefined;
  }

  /** Takes back one turn where spec §7 allows; the next request re-reads from there. */
  deleteTurn(seq: number): void {
    this.o.session.deleteTurn(seq);
    this.pendingCause = 'turn deleted';
    this.measured = undefined;
  }

  /** Takes back the last turn and sends its message again. */
  async regenerate(opts: { signal?: AbortSignal } = {}): Promise<string> {
    const turn = this.o.session.undo();
    this.pendingCause = 'regenerate';
    this.measured = undefined;
    return this.send(turn.words ?? '', { signal: opts.signal });
  }

  requests(): RequestRow[] {
    return this.o.store.listRequests(this.o.session.id);
  }

  async dispose(): Promise<void> {
    await this.o.engine.dispose();
  }

  /** What a request would carry now. */
  conversation(extraUser?: string): Conversation {
    // The session's tool list, the same for its whole life (spec §10.4).
    return buildConversation(this.o.session, this.o.session.tools, extraUser);
  }

  /** The prompt a request would send now, as text (special tokens as their text). */
  promptText(): string {
    return this.o.engine.promptText(this.conversation());
  }

  /** The prompt's length in tokens if a request were made now. */
  promptTokens(): Promise<number> {
    return this.o.engine.promptTokens(this.conversation());
  }

  /**
   * The compaction check's size of the turn's first request: what the last request measured (its
   * prompt, then its reply, which the history now ends with) plus the person's message, counted
   * once. Short of the exact count by the few tokens the template puts around the reply and the
   * message — the threshold leaves a quarter of the context for those (loop.json compact_at).
   * Anything else that changed the history since (a take-back, a compaction, a switch, results
   * left after a stop) makes it a full count.
   */
  private async nextPromptTokens(words: string): Promise<number> {
    const m = this.measured;
    const base = m && m.key === this.historyKey() && m.system === this.o.session.systemPrompt ? m.tokens : await this.promptTokens();
    return base + await this.o.engine.countTokens(words);
  }

  /** Which history a measure was taken on: the epoch, the engine, the last turn and its replies. */
  private historyKey(): string {
    const history = this.o.session.history();
    const last = history.at(-1);
    return `${this.o.engine.id} ${this.o.session.epoch} ${history.length} ${last?.seq} ${last?.replies.length}`;
  }

  private emit(event: LoopEvent): void {
    this.o.onEvent?.(event);
  }

  private async request(
    kind: RequestRow['kind'], extraUser: string | undefined, signal?: AbortSignal, answers?: RequestRow['answers'],
  ): Promise<Generation> {
    const conversation = this.conversation(extraUser);
    const r = await this.o.engine.generate(conversation, {
      maxTokens: this.o.maxReplyTokens ?? loopConfig.maxReplyTokens,
      temperature: this.o.temperature ?? loopConfig.temperature,
      signal,
      onText: (delta) => this.emit({ type: 'text', delta }),
      scripted: this.o.script?.next(),
    });
    const u = r.usage;
    const cachedBefore = Math.max(u.cachedBefore, this.lostCache);
    const lost = u.reusedTokens < cachedBefore;
    const cause = lost || this.pendingCause ? this.pendingCause ?? this.unaskedCause(r) : undefined;
    const request = this.o.store.insertRequest({
      sessionId: this.o.session.id,
      kind,
      model: this.o.engine.id,
      promptTokens: u.promptTokens,
      reusedTokens: u.reusedTokens,
      newTokens: u.newTokens,
      outputTokens: u.outputTokens,
      cachedBefore,
      prefillMs: u.prefillMs,
      generationMs: u.generationMs,
      systemSha: sha256(conversation.system),
      toolsSha: sha256(JSON.stringify(conversation.tools)),
      firstDiff: cause ? u.reusedTokens : undefined,
      cause,
      turn: this.o.session.history().at(-1)?.seq,
      answers,
      contextSize: this.o.engine.contextSize,
      createdAt: new Date().toISOString(),
      ...(u.server ? { server: u.server } : {}),
    });
    this.pendingCause = undefined;
    this.lostCache = 0;
    this.lastReplyStart = u.promptTokens;
    this.emit({ type: 'request', request });
    return r;
  }

  /**
   * A loss nobody asked for: one the engine names itself (a server that evicted the prefix); the same
   * text inside the last reply tokenized otherwise (a reply cut off mid-character, say); else a chat
   * dropped earlier results, or the template re-rendered.
   */
  private unaskedCause(r: Generation): BreakCause {
    const u = r.usage;
    if (u.lossCause) return u.lossCause;
    if (u.rewritten === false && u.reusedTokens >= this.lastReplyStart) return 'reply re-tokenized';
    if (this.o.session.kind === 'chat' && u.reusedTokens < this.lastReplyStart) return 'chat reply results not carried';
    return 'template re-rendered earlier text';
  }
}
