import fs from 'node:fs';
import path from 'node:path';
import { DraftSequenceTokenPredictor, HarmonyChatWrapper, type ChatWrapper, type LlamaContextSequence } from 'node-llama-cpp';
import type {
  Conversation, ConversationMessage, Engine, GenerateOptions, Generation, PromptMap, SaveOptions, StateMeta, StateRestore,
} from '../core/engine/types.js';
import { ContextFullError } from '../core/turn/loop.js';
import { SequenceCheckpoints, sequenceCheckpointOptions } from './checkpoints.js';
import { chatHistory, toolFunctions } from './history.js';
import type { LoadedModel } from './model.js';
import { replyFormat } from './chooseFormat.js';
import type { ReplyFormat } from './replyFormat.js';
import { callEnds } from './replyStream.js';
import { evaluatedText, runRequest, sequenceChanging, type RequestOptions } from './request.js';
import { promptMap } from './promptMap.js';
import { promptTokens } from './splice.js';
import { sharedPrefixes } from './sharedPrefix.js';
import { DRAFT_TOKENS } from './draft.js';
import { SessionLookup, SessionPredictor } from './speculation.js';
import { commitState, newStateFile, pruneStates, readMeta, removeLeftovers } from './stateFiles.js';
import { memoryScratch } from './stateScratch.js';
import { callSyntax, type CallSyntax } from './toolCalls.js';
import { renderPrompt, sessionWrapper } from './wrapper.js';

/**
 * The Engine on node-llama-cpp, in process: one context sequence of a loaded model for one session.
 * Each request is rendered with the model's own template (spec §8), its tokens compared with what
 * the sequence holds, only the differing tail evaluated; the figures are measured, not estimated.
 */
/** How this model's replies are read, for one prompt date (its wrapper and what it writes calls with). */
interface Reading {
  date: string;
  wrapper: ChatWrapper;
  syntax: CallSyntax;
  format: ReplyFormat;
  callEnds: string[];
  /** Whether a reply may go on after a call (request.ts `callsTogether`). */
  callsTogether: boolean;
}

export class LlamaEngine implements Engine {
  private sequence: LlamaContextSequence;
  /** Where the sequence keeps checkpoints, on a model whose state cannot be cut back (checkpoints.ts). */
  readonly checkpoints: SequenceCheckpoints;
  private wrapper?: Reading;
  /** This session's drafts, from its own text or the draft model's sequence, where the load uses speculation (speculation.ts). */
  private readonly lookup?: SessionPredictor;
  /** The draft model's sequence this session drafts on, where the load has a draft model (draft.ts). */
  private readonly draftSequence?: LlamaContextSequence;

  /** `stateBudget`: the bytes all saved states in a state file's folder may take (the oldest go first). */
  constructor(readonly model: LoadedModel, private readonly stateBudget?: number) {
    const speculation = model.setup.speculation?.value ?? 'off';
    const draft = speculation === 'off' ? undefined : model.draft;
    // The draft's context has a sequence for each of the model's; a session opened beyond them looks up instead.
    this.draftSequence = draft && draft.context.sequencesLeft > 0 ? draft.context.getSequence() : undefined;
    // minTokens 1: the model waits for the draft's first guess of a step, else a draft on the same
    // device is always a step behind and nothing is ever checked.
    const drafter = this.draftSequence && new DraftSequenceTokenPredictor(this.draftSequence, { maxTokens: DRAFT_TOKENS, minTokens: 1, minConfidence: draft!.minConfidence });
    this.lookup = speculation === 'off' ? undefined
      : drafter ? new SessionPredictor(drafter, speculation === 'auto')
      : new SessionLookup(speculation === 'auto');
    this.sequence = model.context.getSequence({
      contextShift: {
        strategy: () => {
          throw new ContextFullError('The context is full; Keel compacts instead of dropping earlier history.');
        },
      },
      checkpoints: sequenceCheckpointOptions(model.checkpointBudget),
      ...(this.lookup && { tokenPredictor: this.lookup }),
    });
    this.checkpoints = new SequenceCheckpoints(this.sequence, model.checkpointBudget);
  }

  get id(): string {
    return this.model.path;
  }

  get contextSize(): number {
    return this.sequence.contextSize;
  }

  async countTokens(text: string): Promise<number> {
    return this.model.model.tokenize(text).length;
  }

  /** As the request would tokenize it: what the sequence holds is kept, only the rest is tokenized (splice.ts). */
  async promptTokens(conversation: Conversation): Promise<number> {
    const { text } = this.render(conversation);
    return promptTokens(text, this.model.model, evaluatedText(this.sequence, this.model.model)).length;
  }

  promptText(conversation: Conversation): string {
    return this.render(conversation).text.toString();
  }

  /** The tokens the request would send and keep (promptMap.ts), with the checkpoint a cut back would restore where the state cannot be cut. */
  async promptMap(conversation: Conversation): Promise<PromptMap> {
    const { text } = this.render(conversation);
    const sequence = this.sequence;
    const restoredAt = (start: number) => (start <= sequence.stateCellsStartIndex
      ? this.checkpoints.list().filter((c) => c.position < start).at(-1)?.position ?? -1
      : undefined);
    return promptMap(text, this.model.model, evaluatedText(sequence, this.model.model), {
      held: sequence.nextTokenIndex, ...(this.checkpoints.needed && { restoredAt }),
    });
  }

  cachedTokens(): number {
    return this.sequence.nextTokenIndex;
  }

  /**
   * The tokens every conversation with these system prompt and tools starts with (rendered with first
   * messages that share no first byte: a symbol, a letter, a line break; their common tokens, so no
   * token of a message is in it), evaluated once per model and copied into this empty sequence
   * (sharedPrefix.ts).
   */
  async startFromShared(conversation: Conversation): Promise<void> {
    if (this.sequence.nextTokenIndex > 0) return;
    const opening = (text: string) => this.render({ ...conversation, messages: [{ role: 'user', text }] }).text.tokenize(this.model.model.tokenizer);
    const [first, ...others] = OPENINGS.map(opening);
    let common = first.length;
    for (const other of others) {
      let n = 0;
      while (n < common && n < other.length && first[n] === other[n]) n++;
      common = n;
    }
    if (common > 0) await sharedPrefixes.start(this.sequence, this.stateIdentity(), first.slice(0, common));
  }

  /** How this model writes a tool call (tests and benchmarks script replies with it). */
  syntax(date = ''): CallSyntax {
    return this.current(date).syntax;
  }

  async generate(conversation: Conversation, o: GenerateOptions): Promise<Generation> {
    const { text, stopTriggers, continueOn } = this.render(conversation);
    const { format, callEnds, callsTogether } = this.current(conversation.promptDate);
    const r = await runRequest({
      sequence: this.sequence, model: this.model.model, prompt: text, stopTriggers, continueOn, format, callEnds, callsTogether,
      maxTokens: o.maxTokens, temperature: o.temperature, signal: o.signal, onText: o.onText, scripted: o.scripted,
      checkpoints: this.checkpointPlan(conversation),
    });
    const speculation = this.lookup?.figures(this.sequence, { ms: r.generationMs, tokens: r.outputTokens });
    const read = format.read(r.text, toolFunctions(conversation.tools));
    // A reply cut inside a call (token limit, stop) keeps its exact text, so the prompt carries what was generated.
    const raw = read.complete ? read.raw : r.text;
    return {
      reply: { words: read.words, ...(raw === undefined ? {} : { raw }), calls: read.calls.map(({ name, args, problem, raw }) => ({ name, args, problem, raw })) },
      text: r.text,
      stoppedBy: r.stoppedBy,
      usage: {
        promptTokens: r.promptTokens, reusedTokens: r.reusedTokens, newTokens: r.newTokens, outputTokens: r.outputTokens,
        cachedBefore: r.cachedBefore, prefillMs: r.prefillMs, generationMs: r.generationMs, rewritten: r.rewritten,
        ...((r.checkpoint || speculation) && { engine: { ...(r.checkpoint && { checkpoint: r.checkpoint }), ...(speculation && { speculation }) } }),
      },
    };
  }

  /** How a request reads this model's reply to `conversation` (benchmarks read replies without generating them). */
  replyReading(conversation: Conversation): Pick<RequestOptions, 'format' | 'callEnds' | 'callsTogether' | 'stopTriggers' | 'continueOn'> {
    const { stopTriggers, continueOn } = this.render(conversation);
    const { format, callEnds, callsTogether } = this.current(conversation.promptDate);
    return { format, callEnds, callsTogether, stopTriggers, continueOn };
  }

  /**
   * What makes a saved state usable: the very model file and every setting that shapes the cache.
   * A state made under another identity is never loaded (another model's state can crash the process).
   */
  stateIdentity(): string {
    const { context } = this.model;
    return JSON.stringify({
      model: this.model.identity, contextSize: this.sequence.contextSize, flashAttention: context.flashAttention,
      kvKey: context.kvCacheKeyType, kvValue: context.kvCacheValueType,
    });
  }

  /**
   * Atomic (see stateFiles.ts): a kill at any point leaves the previous state or the new one. The
   * sequence is held only while node-llama-cpp writes the state out (`copied` then), into memory
   * where it can (stateScratch.ts); copying it to its file, syncing and naming it run after, off the sequence.
   */
  async saveState(file: string, meta: StateMeta, o: SaveOptions = {}): Promise<void> {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    removeLeftovers(file);
    if (o.next) await this.keepForNext(o.next);
    const stateFile = newStateFile(file);
    const identity = this.stateIdentity();
    const tokens = this.sequence.nextTokenIndex;
    const scratch = memoryScratch(tokens * (bytesPerToken.get(identity) ?? NaN));
    let inMemory = false;
    try {
      // A write to memory that fails (the memory file system filled up meanwhile) is made to the file instead.
      inMemory = scratch !== undefined && await this.sequence.saveStateToFile(scratch.path).then(() => true, () => (scratch.close(), false));
      if (!inMemory) await this.sequence.saveStateToFile(stateFile);
    } finally {
      o.copied?.();
    }
    if (scratch && inMemory) await scratch.moveTo(stateFile);
    const saved = await commitState(file, stateFile, { identity, tokens, ...meta });
    if (tokens > 0) bytesPerToken.set(identity, saved.bytes / tokens);
    if (this.stateBudget !== undefined) pruneStates(path.dirname(file), this.stateBudget, file);
  }

  async restoreState(file: string): Promise<StateRestore> {
    const saved = readMeta(file);
    removeLeftovers(file);
    if (!saved.ok) return { restored: false, reason: saved.reason };
    const { meta } = saved;
    if (meta.identity !== this.stateIdentity()) return { restored: false, reason: 'saved state unusable: it was made by another model or with other cache settings' };
    if (meta.tokens > 0) bytesPerToken.set(meta.identity, meta.bytes / meta.tokens);
    const stateFile = path.join(path.dirname(file), meta.state);
    const size = fs.existsSync(stateFile) ? fs.statSync(stateFile).size : -1;
    if (size !== meta.bytes) return { restored: false, reason: `saved state unusable: ${stateFile} is ${size < 0 ? 'missing' : 'torn'}` };
    sequenceChanging(this.sequence);
    // Checkpoints taken of the state being replaced would restore another history.
    await this.checkpoints.reset('restore');
    try {
      await this.sequence.loadStateFromFile(stateFile, { acceptRisk: true });
    } catch (e) {
      await this.sequence.clearHistory();
      return { restored: false, reason: `saved state unusable: ${(e as Error).message}` };
    }
    return { restored: true, meta: { pendingCause: meta.pendingCause } };
  }

  /**
   * On a sequence that keeps checkpoints: where the next message departs from the cache before its
   * end, the cache is cut back to the last checkpoint before that point (a restore, nothing re-read),
   * so what is saved is the state that message starts from (checkpoints.ts). Nothing else is lost:
   * that message would have cut back there itself; only a regenerate of the last reply now starts
   * from this checkpoint too.
   */
  private async keepForNext(next: Conversation): Promise<void> {
    if (!this.checkpoints.needed) return;
    const end = this.sequence.nextTokenIndex;
    const departs = promptTokens(this.render(next).text, this.model.model, evaluatedText(this.sequence, this.model.model)).firstDiff;
    if (departs >= end) return;
    const at = this.checkpoints.list().filter((c) => c.position < departs).at(-1)?.position;
    if (at === undefined) return;
    sequenceChanging(this.sequence);
    await this.sequence.eraseContextTokenRanges([{ start: at + 1, end }]);
  }

  /**
   * Gives the sequence back. node-llama-cpp reclaims its id under the context's lock, after the batch
   * being dispatched: the promise waits for that (briefly), so the caller can open another at once.
   */
  async dispose(): Promise<void> {
    if (this.sequence.disposed) return;
    const { context } = this.model;
    const left = context.sequencesLeft;
    this.sequence.dispose();
    this.draftSequence?.dispose();
    for (let waited = 0; context.sequencesLeft <= left && !context.disposed && waited < 2000; waited += 5) await sleep(5);
  }

  /** The model's wrapper and its call syntax, made again only when the prompt date changes. */
  private current(date: string): Reading {
    if (this.wrapper?.date !== date) {
      const wrapper = sessionWrapper(this.model.model, date);
      const syntax = callSyntax(wrapper);
      const ends = callEnds({ harmony: wrapper instanceof HarmonyChatWrapper, suffix: syntax.suffix });
      this.wrapper = {
        date, wrapper, syntax, format: replyFormat(wrapper, syntax), callEnds: ends, callsTogether: wrapper.settings.functions.parallelism !== undefined,
      };
    }
    return this.wrapper;
  }

  /**
   * Where this request keeps checkpoints, on a sequence that needs them: the turn is the count of the
   * person's messages; a request that carries a new message renders it once more with other text
   * (`probe`), so the point where an edit or undo of that message would depart is the template's own;
   * and the conversation is rendered continued by a finished reply and a message (`next`), so the
   * point where the next request departs is too (request.ts).
   */
  private checkpointPlan(conversation: Conversation): RequestOptions['checkpoints'] {
    if (!this.checkpoints.needed) return undefined;
    const { messages } = conversation;
    const turn = messages.filter((m) => m.role === 'user').length;
    const last = messages.at(-1);
    const reply = { text: PROBE, calls: [] };
    const answered: ConversationMessage[] = last?.role === 'model'
      ? [...messages.slice(0, -1), { role: 'model', replies: [...last.replies, reply] }]
      : [...messages, { role: 'model', replies: [reply] }];
    const next = this.render({ ...conversation, messages: [...answered, { role: 'user', text: PROBE }] }).text;
    if (last?.role !== 'user') return { keeper: this.checkpoints, turn, next };
    const other = last.text.startsWith(PROBE) ? PROBE_OTHER : PROBE;
    const probe = this.render({ ...conversation, messages: [...messages.slice(0, -1), { role: 'user', text: other }] }).text;
    return { keeper: this.checkpoints, turn, probe, next };
  }

  private render(conversation: Conversation) {
    const { wrapper, format } = this.current(conversation.promptDate);
    const { history, results } = chatHistory(conversation, format);
    return renderPrompt(wrapper, history, toolFunctions(conversation.tools), results);
  }
}

/** Stand-in texts for the person's message: they differ from any message at its first character. */
const PROBE = '\u2400';
const PROBE_OTHER = '\u2401';
/** First messages that begin with nothing in common, not even a byte (startFromShared). */
const OPENINGS = [PROBE, 'A', '\n'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A saved state's size per cached token, by state identity (learned from saves and restores): how much memory a save needs. */
const bytesPerToken = new Map<string, number>();
