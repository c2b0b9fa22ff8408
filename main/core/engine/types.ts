/**
 * The Engine the agent loop drives (types only). An engine renders a conversation with its model's
 * own format, generates the next reply with streaming, and reports what each request cost: how much
 * of the prompt came from the cache and how much was read anew. The loop (core/turn/loop.ts)
 * owns everything else — steps, repeats, compaction, approvals, causes — so a second engine (a model
 * server) fits without touching it. main/llm implements it on node-llama-cpp in process.
 */
import type { BreakCause, EngineRecord } from './breaks.js';
import type { ToolSpec } from '../types.js';

/** A tool as the model is told of it: kept with the session, the same bytes every request. */
export type { ToolSpec };

/** One call of a stored reply, with the exact text it was generated as and its result as inserted. */
export interface ConversationCall {
  name: string;
  args: unknown;
  /** The call's exact generated text. */
  raw: string;
  number: number;
  /** The result's inserted text (what the model got). */
  result: string;
}

export interface ConversationReply {
  /** The words, as the person read them. */
  text: string;
  /** The exact generated text before the calls, where it is more than the words. */
  raw?: string;
  /** Calls the request carries (a chat carries only the current reply's, spec §2). */
  calls: ConversationCall[];
}

export type ConversationMessage =
  | {
    role: 'user'; text: string;
    /** The turn it opens, as the history numbers turns (absent for a message no turn holds). */
    turn?: number;
    /** How Keel put `text` together, in order, each a slice of it (absent where it is one piece); engines send `text`. */
    sections?: MessageSection[];
  }
  | { role: 'model'; replies: ConversationReply[]; turn?: number };

/**
 * A piece of a person's message as Keel wrote it: the summary of compacted turns, the person's
 * words, the notes after them, a task Keel sends once (the compaction request), or the stand-in
 * for the next message's words (what the next request will send, its words unknown yet).
 */
export interface MessageSection {
  kind: 'summary' | 'words' | 'notes' | 'task' | 'next';
  text: string;
}

/**
 * Everything a request carries, engine-neutral, in order: the kept system prompt, the session's fixed
 * tool list, then the messages as they were sent. It ends with a user message, or with the model
 * turn being continued after its calls' results.
 */
export interface Conversation {
  system: string;
  tools: readonly ToolSpec[];
  messages: ConversationMessage[];
  /** The date fixed when the system prompt was built: the only date a template may print. */
  promptDate: string;
}

/**
 * The prompt as its tokens, for the context view (core/context): the text the tokens read back as,
 * and where each token ends in it, so every token can be given to the part of the conversation
 * whose text it reads. `ends.length` is the prompt's length in tokens, the same figure
 * `promptTokens` gives and a request reports.
 */
export interface PromptMap {
  /** The tokens read back in order (special tokens as their text). */
  text: string;
  /**
   * Each token's end offset in `text`, ascending. A token whose bytes finish a character only with
   * the tokens after it (a character split among byte tokens) ends where it begins.
   */
  ends: number[];
  /** How many leading tokens a request sent now would take from the cache; it reads the rest. */
  cached: number;
  /** False where the tokens are an estimate (a server that cannot count them): then so is every figure. */
  exact: boolean;
}

/** A tool call read from a reply. */
export interface ModelCall {
  name: string;
  /** The arguments, when they could be read. */
  args: unknown;
  /** Why the arguments could not be read (malformed JSON from the model). */
  problem?: string;
  /** The call's exact generated text. */
  raw: string;
}

export interface ReadReply {
  /** What the person reads. */
  words: string;
  /** The exact generated text before the first call, where it is more than the words. */
  raw?: string;
  calls: ModelCall[];
}

/** What one request cost, measured by the engine (or reported by its server). */
export interface RequestUsage {
  promptTokens: number;
  reusedTokens: number;
  newTokens: number;
  outputTokens: number;
  /** What the cache held before the request: reuse short of it is a loss. */
  cachedBefore: number;
  prefillMs: number;
  generationMs: number;
  /**
   * Whether text already evaluated (or sent) was rendered otherwise this time, before the end of what
   * was cached: the engine's own knowledge; undefined where it cannot tell.
   */
  rewritten?: boolean;
  /** A loss the engine can name itself (a server that evicted the prefix), where Keel changed nothing. */
  lossCause?: BreakCause;
  /** What the engine recorded of the request itself (a server's own figures, the checkpoint a cut resumed from): see EngineRecord. */
  engine?: EngineRecord;
}

export type { EngineRecord };

export type StopReason = 'end' | 'call' | 'trigger' | 'limit' | 'stopped';

export interface Generation {
  reply: ReadReply;
  /** The exact generated text (special tokens as their text). */
  text: string;
  stoppedBy: StopReason;
  usage: RequestUsage;
}

export interface GenerateOptions {
  maxTokens: number;
  temperature: number;
  signal?: AbortSignal;
  /** The words as they are written: never a call, nor what may become one. */
  onText?: (delta: string) => void;
  /** A reply to force, in the engine's own text (tests and benchmarks); undefined samples freely. */
  scripted?: string;
}

/** What a saved state is, and why it was or was not usable. */
export type StateRestore =
  | { restored: true; meta: StateMeta }
  | { restored: false; reason?: string };

/** What the loop keeps beside a saved state. */
export interface StateMeta {
  /** A loss the next request owes to something before the save (a compaction, say). */
  pendingCause?: BreakCause;
}

export interface SaveOptions {
  /** Called once the engine can run again (its cache is copied out); the save's promise settles when it is on disk. */
  copied?: () => void;
  /**
   * The conversation the next message will send (with a stand-in for its words). An engine whose
   * state cannot be cut back saves the state that message will start from: where it departs from
   * the cache before the cache's end (a template that renders the last reply otherwise once a new
   * message comes), the checkpoint before that point, not the end nobody can use.
   */
  next?: Conversation;
}

export interface Engine {
  /** What the session records as its model: a GGUF's path, or a server's model. */
  readonly id: string;
  /** The context the requests run in, in tokens. */
  readonly contextSize: number;
  /** A text's length in the model's tokens (a server may be asked). */
  countTokens(text: string): Promise<number>;
  /** The prompt's length in tokens, if it were sent now. */
  promptTokens(conversation: Conversation): Promise<number>;
  /** The prompt as text (special tokens as their text): for tests, benchmarks and inspection. */
  promptText(conversation: Conversation): string;
  /** The prompt as its tokens, and how many of them the cache holds now (see PromptMap). */
  promptMap(conversation: Conversation): Promise<PromptMap>;
  generate(conversation: Conversation, options: GenerateOptions): Promise<Generation>;
  /** Tokens the cache holds now: what a switch or restart loses. */
  cachedTokens(): number;
  /**
   * An empty cache starts from the part of `conversation` before its first message (the system
   * prompt and tools), evaluated once for every engine on the same model and copied, not read again
   * (subagents that share it). Engines that cannot copy a cache leave it out.
   */
  startFromShared?(conversation: Conversation): Promise<void>;
  /** Saves the cache where it can be restored (atomically); engines without a local cache do nothing. */
  saveState(file: string, meta: StateMeta, options?: SaveOptions): Promise<void>;
  /** Restores a saved cache if it was made by this very engine setup; a missing, torn or foreign one is not used. */
  restoreState(file: string): Promise<StateRestore>;
  dispose(): Promise<void>;
}
