import { hooksConfig, loopConfig } from '../config.js';
import type { Conversation, Engine, Generation, SaveOptions } from '../engine/types.js';
import { readPrompt } from '../prompts/buildSystemPrompt.js';
import { RepeatCheck } from '../calls/repeat.js';
import { buildConversation } from './conversation.js';
import { contextView, type ContextView } from '../context/contextView.js';
import type { RewindPlan } from '../checkpoints/types.js';
import type { CallOptions, Session } from '../session/session.js';
import { PromptSize } from './promptSize.js';
import { RequestLog, unfinished } from './requests.js';
import type { LoopEvent, LoopOptions } from './loopTypes.js';
import type { BreakCause, Mode, ReplyCall, RequestRow } from '../state/types.js';
import { breakPrice, describePrice, type BreakAction, type BreakPrice } from '../price/price.js';
import { SessionError } from '../state/deps.js';
import { prefillSpeed } from '../price/prefillSpeed.js';
import { compactionText } from '../hygiene/compactionTable.js';
import { messageWithNotes } from '../state/notes.js';

/** An action to price; a compaction's summary is estimated by the loop. */
export type PricedAction = Exclude<BreakAction, { kind: 'compact' }> | { kind: 'compact' };


export type { LoopEvent, LoopOptions, Script } from './loopTypes.js';
export { unfinished } from './requests.js';

/** A stand-in for the person's next message, never sent: only where the conversation departs from the cache matters. */
export const NEXT_MESSAGE = '\u2400';

/** The context would overflow: Keel compacts rather than letting old history be dropped. */
export class ContextFullError extends Error {}

/** How the person's message is sent; `allowed` holds for every call of its turn, a Stop hook's continuation included. */
export interface SendOptions {
  date?: string;
  mode?: Mode;
  signal?: AbortSignal;
  /** Allow rules for this turn only (a slash command's `allowed-tools`): calls they cover run without asking; the next turn asks again. */
  allowed?: CallOptions['allowed'];
}

/**
 * The agent loop, on any Engine: a person's message, then requests until the model answers without
 * a tool call — each call run through the session (validation, permissions, hygiene), each request
 * recorded with its cache use and the cause of any loss. Keel's own history changes (compaction,
 * undo, a switch) name their cause; a loss nobody asked for is the engine's to explain.
 */
export class AgentLoop {
  private readonly log: RequestLog;
  /** The compaction check's size of the next turn's first request. */
  private readonly size: PromptSize;

  constructor(private o: LoopOptions) {
    this.log = new RequestLog(o.store, o.session);
    this.size = new PromptSize(o, (words) => this.o.engine.promptTokens(this.conversation(words)));
    if (o.session.turns().length > 0 || o.session.epoch > 0) this.log.pendingCause = 'resumed without cache';
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
      this.log.pendingCause = r.meta.pendingCause;
      return true;
    }
    if (r.reason) {
      this.log.pendingCause = 'saved state unusable';
      this.emit({ type: 'notice', text: `The saved cache of session ${this.o.session.id} was not used: ${r.reason}. The next request reads everything again.` });
    }
    return false;
  }

  /** Saves the engine's cache for this session (at idle, before its cache is given away, at quit). */
  async saveState(options: SaveOptions = {}): Promise<void> {
    if (!this.o.stateFile) return;
    // The conversation the next message will send, with a stand-in for its words: where it departs from the cache.
    await this.o.engine.saveState(this.o.stateFile, { pendingCause: this.log.pendingCause }, { ...options, next: this.nextConversation() });
  }

  /**
   * The person's message: the loop runs until the model answers without a tool call. The person's
   * UserPromptSubmit hooks add their note to it first; once the model answers, a Stop hook that
   * exits 2 sends its text as the next message and the loop goes on (at most hooks.stop_limit times).
   */
  async send(words: string, opts: SendOptions = {}): Promise<string> {
    return (await this.answer(words, opts)).words;
  }

  /** As `send`, and whether the model answered (not stopped, not cut off by the step limit or its repeats). */
  async answer(words: string, opts: SendOptions = {}): Promise<{ words: string; answered: boolean }> {
    const hooks = this.o.session.hooks;
    let r = await this.turn(words, opts, true);
    for (let kept = 0; r.answered && !hooks.empty; kept++) {
      const stop = await hooks.stop(kept > 0, opts.signal);
      if (stop.runs.length) this.emit({ type: 'hook', event: 'Stop', runs: stop.runs });
      if (stop.text === undefined) break;
      if (kept === hooksConfig.stop_limit.value) {
        this.emit({ type: 'notice', text: `A Stop hook kept the turn going ${kept} times; Keel let the model stop (loop.json hooks.stop_limit).` });
        break;
      }
      r = await this.turn(stop.text, { signal: opts.signal, allowed: opts.allowed }, false);
    }
    return r;
  }

  /** One message (the person's, with their UserPromptSubmit hooks; or a Stop hook's) and the requests that answer it. */
  private async turn(words: string, opts: SendOptions, person: boolean): Promise<{ words: string; answered: boolean }> {
    if (await this.size.next(words) > (this.o.compactAt ?? loopConfig.compactAt) * this.o.engine.contextSize) {
      await this.withinMaxBreak({ kind: 'compact' }, 'compact the session');
      await this.compact(opts.signal);
    }
    this.size.forget();
    const { sent, hooks } = person ? await this.o.session.hookedMessage(words, opts) : { ...this.o.session.userMessage(words, opts), hooks: [] };
    if (hooks.length) this.emit({ type: 'hook', event: 'UserPromptSubmit', runs: hooks });
    this.emit({ type: 'message', sent });
    this.fileNotices();
    try {
      return await this.loop(opts.signal, opts.allowed);
    } finally {
      // The turn ends however the loop ended (an answer, a stop, an error): nothing is left half-open.
      this.o.session.endReply();
    }
  }

  /** Requests until the model answers (`answered`), is stopped, or the step limit is reached. */
  private async loop(signal?: AbortSignal, allowed?: CallOptions['allowed']): Promise<{ words: string; answered: boolean }> {
    const repeats = new RepeatCheck();
    for (let step = 0; step < (this.o.maxSteps ?? loopConfig.maxSteps); step++) {
      const r = await this.request('turn', undefined, signal, step === 0 ? 'person' : 'results');
      const { reply } = r;
      if (reply.calls.length === 0) {
        this.o.session.recordReply(reply.words, [], reply.raw);
        this.size.answered(r);
        const why = unfinished(r);
        if (why) this.emit({ type: 'notice', text: why });
        return { words: reply.words, answered: !signal?.aborted && r.stoppedBy !== 'stopped' };
      }
      // Each result is stored once, with its length in the engine's tokens; the event hands that value on.
      const o: CallOptions = { signal, allowed, countTokens: (text: string) => this.o.engine.countTokens(text) };
      const asked = reply.calls.map((call) => ({ ...call, problem: repeats.problem(call) }));
      const results = await this.o.session.calls.runAll(asked, o, (result, i) => {
        this.emit({ type: 'tool', name: asked[i].name, args: asked[i].args, result });
        this.fileNotices();
      }, (i, number) => this.emit({ type: 'tool-started', name: asked[i].name, args: asked[i].args, number }));
      const calls: ReplyCall[] = asked.map((call, i) => ({ name: call.name, args: call.args ?? null, number: results[i].number, raw: call.raw }));
      this.o.session.recordReply(reply.words, calls, reply.raw);
      if (signal?.aborted || repeats.exhausted) break;
    }
    return { words: '', answered: false };
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
    const text = this.o.session.history.compact(r.reply.words);
    this.changed('compaction');
    this.emit({ type: 'compacted', text });
    return text;
  }

  /** Moves the session to another engine: the prompt is rebuilt, and the next request is a full read. */
  async switchEngine(engine: Engine): Promise<void> {
    this.log.lostCache = this.o.engine.cachedTokens();
    await this.o.engine.dispose();
    this.o.engine = engine;
    this.o.session.rebuildPrompt({ model: engine.id });
    this.changed('model switched');
  }

  /** Takes back the last turn; with `files`, what it changed in the workspace too (the plan says what). */
  undo(o: { files?: boolean } = {}): RewindPlan | undefined {
    const plan = o.files ? this.o.session.history.undoWithFiles().plan : (this.o.session.history.undo(), undefined);
    this.changed('undo');
    return plan;
  }

  /** A rewind to turn `seq`, with its files or not: the KV cache is reused up to there either way. */
  rewindTo(seq: number, o: { files?: boolean } = {}): RewindPlan | undefined {
    const plan = o.files ? this.o.session.history.rewindWithFiles(seq).plan : (this.o.session.history.rewindTo(seq), undefined);
    this.changed('rewind');
    return plan;
  }

  /** A snapshot that failed: the person is told, the turn goes on. */
  private fileNotices(): void {
    for (const text of this.o.session.files.takeNotices()) this.emit({ type: 'notice', text });
  }

  /** Takes back one turn where spec §7 allows; the next request re-reads from there. */
  deleteTurn(seq: number): void {
    this.o.session.history.deleteTurn(seq);
    this.changed('turn deleted');
  }

  /** Takes back the last turn and sends its message again. */
  async regenerate(opts: { signal?: AbortSignal } = {}): Promise<string> {
    const turn = this.o.session.history.undo();
    this.changed('regenerate');
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

  /** What the next message will send: a stand-in for its words (they are not known yet) and the notes it would carry now. */
  nextConversation(): Conversation {
    return buildConversation(this.o.session, this.o.session.tools, messageWithNotes(NEXT_MESSAGE, this.o.session.notesAfter()), 'next');
  }

  /** The next message's request by part, each cached or new, summing to its prompt tokens (core/context). */
  context(): Promise<ContextView> {
    return contextView(this.o.engine, this.nextConversation());
  }

  /**
   * What `action` would leave the next request to read again, and about how long that takes at
   * this session's measured prefill speed (core/price): told before it is paid. A compaction's
   * summary is not written yet: the last one stands in for it; before the first, the longest words
   * the model wrote in one reply of the session (a summary is the most it writes at once; none, a
   * floor, priced bench:reuse's first compaction at 0.74 of its time).
   */
  priceOf(action: PricedAction): Promise<BreakPrice> {
    const turns = this.o.session.turns();
    const longestReply = () => turns.flatMap((t) => t.replies.map((r) => r.text)).reduce((a, b) => (b.length > a.length ? b : a), '');
    const full: BreakAction = action.kind === 'compact'
      ? { kind: 'compact', summaryText: compactionText(this.o.store.lastCompaction(this.o.session.id)?.summary ?? longestReply(), turns.flatMap((t) => t.reads)) }
      : action;
    const nextMessage = (keep: (turn: number) => boolean) => messageWithNotes(NEXT_MESSAGE, this.o.session.notesAfter(keep));
    return breakPrice(this.o.engine, this.nextConversation(), nextMessage, full, prefillSpeed(this.requests()));
  }

  /** Where the person set the most seconds a cache break may cost unasked (`keel run --max-seconds`): a dearer one is refused, nothing changed. */
  private async withinMaxBreak(action: PricedAction, what: string): Promise<void> {
    if (this.o.maxBreakSeconds === undefined) return;
    const price = await this.priceOf(action);
    if ((price.seconds ?? 0) <= this.o.maxBreakSeconds) return;
    throw new SessionError(`Keel would ${what}, which ${describePrice(price)}: more than the ${this.o.maxBreakSeconds} s allowed (--max-seconds). Nothing was changed.`);
  }

  /** The prompt a request would send now, as text (special tokens as their text). */
  promptText(): string {
    return this.o.engine.promptText(this.conversation());
  }

  /** The prompt's length in tokens if a request were made now. */
  promptTokens(): Promise<number> {
    return this.o.engine.promptTokens(this.conversation());
  }

  /** Keel changed the history itself: the next request's loss is owed to `cause`, and the next compaction check counts anew. */
  private changed(cause: BreakCause): void {
    this.log.pendingCause = cause;
    this.size.forget();
  }

  private emit(event: LoopEvent): void {
    this.o.onEvent?.(event);
  }

  private async request(
    kind: RequestRow['kind'], extraUser: string | undefined, signal?: AbortSignal, answers?: RequestRow['answers'],
  ): Promise<Generation> {
    const conversation = this.conversation(extraUser);
    // A subagent starts from the prefix its siblings share, evaluated once (engine.startFromShared).
    if (this.o.sharePrefix && this.o.engine.cachedTokens() === 0) await this.o.engine.startFromShared?.(conversation);
    const r = await this.o.engine.generate(conversation, {
      maxTokens: this.o.maxReplyTokens ?? loopConfig.maxReplyTokens,
      temperature: this.o.temperature ?? loopConfig.temperature,
      signal,
      onText: (delta) => this.emit({ type: 'text', delta }),
      scripted: this.o.script?.next(),
    });
    const request = this.log.record(this.o.engine, conversation, r, kind, answers);
    this.emit({ type: 'request', request });
    return r;
  }
}
