import type {
  Conversation, Engine, GenerateOptions, Generation, ModelCall, PromptMap, RequestUsage, StateRestore, StopReason,
} from '../core/engine/types.js';
import type { ServerConnection } from './connect.js';
import { serverModelId } from './connect.js';
import { ServerError } from './errors.js';
import {
  firstChange, storedCall, storedReasoning, wireMessages, wireTools, type BodyChange, type WireMessage, type WireToolCall,
} from './messages.js';
import { estimatedMap, pieceTexts, sharedPrefix, type ServerToken } from './promptMap.js';
import { scriptedReply, type ScriptedReply } from './scripted.js';
import { malformed, sseEvents } from './sse.js';

/** The context assumed where a server reports none (OpenAI-compatible servers need not). */
const DEFAULT_CONTEXT = 32_768;
/** Characters per token where the server cannot count (an estimate for compaction's threshold only). */
const CHARS_PER_TOKEN = 4;

/** llama-server slots taken per server URL: each session gets its own while there are enough. */
const slotsInUse = new Map<string, Set<number>>();

interface Sent {
  messages: string[];
  tools: string;
  promptTokens: number;
  outputTokens: number;
  reported: boolean;
}

/** What one exchange produced, before it becomes a Generation. */
interface Exchange {
  /** The exact generated text, where it is more than the words and calls (the scripted path's). */
  text?: string;
  words: string;
  reasoning: string;
  calls: ModelCall[];
  stoppedBy: StopReason;
  promptTokens?: number;
  cached?: number;
  outputTokens: number;
  prefillMs: number;
  generationMs: number;
  /** The tokens the server drafted for the reply and those the model accepted (llama-server started with --spec-type). */
  drafts?: { drafted: number; accepted: number };
}

/**
 * The Engine on a model server, over the OpenAI-compatible Chat Completions API: streamed replies
 * (SSE, usage in the last chunk), `tools` with `tool_choice: "auto"`, tool calls and results with
 * their ids, reasoning where the server sends it. On llama-server it adds `cache_prompt` and one
 * `id_slot` per session. Each request body is compared with the previous one (messages.ts): the
 * record names the first earlier message and byte that changed, and a drop in the server's cached
 * tokens with nothing changed on Keel's side is the server's eviction.
 *
 * Scripted replies (tests, benchmarks) need llama-server: see scripted.ts.
 */
export class ServerEngine implements Engine {
  readonly id: string;
  readonly contextSize: number;
  private readonly slot?: number;
  private sent?: Sent;
  /** The last request's conversation: what the slot holds, with its reply (the context view's cached figure). */
  private lastSent?: Conversation;
  private held = 0;
  private disposed = false;
  private requests = 0;

  constructor(private readonly server: ServerConnection, o: { contextSize?: number } = {}) {
    this.id = serverModelId(server.client.url, server.model);
    this.contextSize = server.llama?.contextSize ?? server.contextSize ?? o.contextSize ?? DEFAULT_CONTEXT;
    if (server.llama && server.llama.slots > 0) {
      const taken = slotsInUse.get(server.client.url) ?? new Set<number>();
      slotsInUse.set(server.client.url, taken);
      let slot = 0;
      while (taken.has(slot) && slot < server.llama.slots) slot++;
      // More sessions than slots: they share, round robin (the server keeps one prefix per slot).
      this.slot = slot < server.llama.slots ? slot : taken.size % server.llama.slots;
      taken.add(this.slot);
    }
  }

  get url(): string {
    return this.server.client.url;
  }

  /** The llama-server slot this session's requests use (undefined on other servers). */
  get slotId(): number | undefined {
    return this.slot;
  }

  async countTokens(text: string): Promise<number> {
    if (!this.server.llama) return Math.ceil(Buffer.byteLength(text) / CHARS_PER_TOKEN);
    const r = await this.server.client.postJson<{ tokens: unknown[] }>('/tokenize', { content: text, add_special: false, parse_special: false });
    return r.tokens.length;
  }

  async promptTokens(conversation: Conversation): Promise<number> {
    if (!this.server.llama) return Math.ceil(Buffer.byteLength(this.promptText(conversation)) / CHARS_PER_TOKEN);
    const prompt = await this.applyTemplate(wireMessages(conversation), conversation);
    const r = await this.server.client.postJson<{ tokens: unknown[] }>('/tokenize', { content: prompt, add_special: true, parse_special: true });
    return r.tokens.length;
  }

  /** The request's messages and tools as JSON: what the server is sent (it renders the prompt itself). */
  promptText(conversation: Conversation): string {
    return JSON.stringify({ messages: wireMessages(conversation), tools: wireTools(conversation.tools) }, null, 1);
  }

  /**
   * The prompt as the server tokenizes it (`/apply-template`, then `/tokenize` with pieces). Cached
   * is what Keel knows the slot holds: the tokens this prompt shares with the last request's, and
   * where it shares all of them, the reply generated after them (less its last token, never
   * evaluated) — the server's own figure comes with the request. Other servers: estimatedMap.
   */
  async promptMap(conversation: Conversation): Promise<PromptMap> {
    const last = this.sent?.reported ? this.lastSent : undefined;
    if (!this.server.llama) return estimatedMap(this.promptText(conversation), CHARS_PER_TOKEN, last && this.promptText(last));
    const tokens = await this.serverTokens(await this.applyTemplate(wireMessages(conversation), conversation));
    let cached = 0;
    if (last && this.sent) {
      const before = (await this.serverTokens(await this.applyTemplate(wireMessages(last), last))).map((t) => t.id);
      const shared = sharedPrefix(tokens.map((t) => t.id), before);
      cached = Math.min(shared === before.length ? shared + Math.max(0, this.sent.outputTokens - 1) : shared, this.held);
    }
    return { ...pieceTexts(tokens), cached: Math.min(cached, Math.max(0, tokens.length - 1)), exact: true };
  }

  cachedTokens(): number {
    return this.held;
  }

  async generate(conversation: Conversation, o: GenerateOptions): Promise<Generation> {
    if (this.disposed) throw new Error('The server engine was closed.');
    const messages = wireMessages(conversation);
    const tools = wireTools(conversation.tools);
    const json = messages.map((m) => JSON.stringify(m));
    const toolsJson = JSON.stringify(tools);
    const change = this.sent ? firstChange(this.sent.messages, this.sent.tools, json, toolsJson) : undefined;
    this.requests++;
    const x = o.scripted === undefined
      ? await this.chat(messages, tools, o)
      : await this.scripted(messages, conversation, scriptedReply(o.scripted, this.requests), o);
    const usage = this.usage(x, change);
    this.sent = { messages: json, tools: toolsJson, promptTokens: usage.promptTokens, outputTokens: x.outputTokens, reported: x.cached !== undefined };
    this.lastSent = { ...conversation, messages: [...conversation.messages] };
    this.held = usage.promptTokens + x.outputTokens;
    return {
      reply: { words: x.words, ...(x.reasoning ? { raw: storedReasoning(x.reasoning) } : {}), calls: x.calls },
      text: x.text ?? [x.words, ...x.calls.map((c) => c.raw)].join('\n'),
      stoppedBy: x.stoppedBy,
      usage,
    };
  }

  /** No cache of Keel's own: the server keeps its prefix in the session's slot. */
  async saveState(): Promise<void> {}

  async restoreState(): Promise<StateRestore> {
    return { restored: false };
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    if (this.slot !== undefined) slotsInUse.get(this.url)?.delete(this.slot);
  }

  /**
   * The figures of one request. The server's cached tokens are its own report (or "not reported":
   * then no loss can be seen). What the slot held before is the previous prompt and reply (less the
   * reply's last token, which a server samples but never evaluates).
   */
  private usage(x: Exchange, change: BodyChange | undefined): RequestUsage {
    const reported = x.cached !== undefined;
    const promptTokens = x.promptTokens ?? 0;
    const reused = reported ? Math.min(x.cached!, promptTokens) : 0;
    const prev = this.sent;
    const cachedBefore = reported && prev?.reported ? prev.promptTokens + Math.max(0, prev.outputTokens - 1) : 0;
    const evicted = reported && prev !== undefined && change === undefined && reused < Math.min(prev.promptTokens, cachedBefore);
    return {
      promptTokens, reusedTokens: reused, newTokens: promptTokens - reused, outputTokens: x.outputTokens,
      cachedBefore, prefillMs: x.prefillMs, generationMs: x.generationMs,
      ...(prev ? { rewritten: change !== undefined } : {}),
      ...(evicted ? { lossCause: 'server evicted the prefix' as const } : {}),
      engine: {
        server: {
          url: this.url, cachedTokens: reported ? x.cached! : null, change: change ?? null,
          ...(this.slot === undefined ? {} : { slot: this.slot }),
        },
        ...(x.drafts && { speculation: { accepted: x.drafts.accepted, refuted: x.drafts.drafted - x.drafts.accepted } }),
      },
    };
  }

  /** The normal path: /v1/chat/completions, streamed, with the session's tools. */
  private async chat(messages: WireMessage[], tools: ReturnType<typeof wireTools>, o: GenerateOptions): Promise<Exchange> {
    const llama = this.server.llama !== undefined;
    const body = JSON.stringify({
      model: this.server.model,
      messages,
      ...(tools.length > 0 ? { tools, tool_choice: 'auto' } : {}),
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: o.maxTokens,
      temperature: o.temperature,
      ...(llama ? { cache_prompt: true, ...(this.slot === undefined ? {} : { id_slot: this.slot }) } : {}),
    });
    const x: Exchange = { words: '', reasoning: '', calls: [], stoppedBy: 'end', outputTokens: 0, prefillMs: 0, generationMs: 0 };
    const parts = new Map<number, { id?: string; name: string; arguments: string }>();
    let finish: string | undefined;
    const began = performance.now();
    let firstAt: number | undefined;
    const outcome = await this.stream('/v1/chat/completions', body, o.signal, (event) => {
      const usage = event.usage as { prompt_tokens?: number; completion_tokens?: number; prompt_tokens_details?: { cached_tokens?: number } } | undefined | null;
      if (usage) {
        x.promptTokens = usage.prompt_tokens;
        x.outputTokens = usage.completion_tokens ?? x.outputTokens;
        const cached = usage.prompt_tokens_details?.cached_tokens;
        if (typeof cached === 'number') x.cached = cached;
      }
      readTimings(event, x);
      const choices = event.choices;
      if (!Array.isArray(choices)) throw malformed(this.url, 'a chunk without `choices`');
      const choice = choices[0] as { delta?: Record<string, unknown>; finish_reason?: string | null } | undefined;
      if (!choice) return;
      if (choice.finish_reason) finish = choice.finish_reason;
      const d = choice.delta ?? {};
      if (typeof d.content === 'string' && d.content !== '') {
        firstAt ??= performance.now();
        x.words += d.content;
        o.onText?.(d.content);
      }
      if (typeof d.reasoning_content === 'string') {
        firstAt ??= performance.now();
        x.reasoning += d.reasoning_content;
      }
      if (Array.isArray(d.tool_calls)) {
        firstAt ??= performance.now();
        for (const raw of d.tool_calls as { index?: number; id?: string; function?: { name?: string; arguments?: string } }[]) {
          const index = raw.index ?? parts.size;
          const part = parts.get(index) ?? { name: '', arguments: '' };
          if (raw.id) part.id = raw.id;
          if (raw.function?.name) part.name += raw.function.name;
          if (typeof raw.function?.arguments === 'string') part.arguments += raw.function.arguments;
          parts.set(index, part);
        }
      }
    });
    if (x.prefillMs === 0) x.prefillMs = (firstAt ?? performance.now()) - began;
    if (x.generationMs === 0) x.generationMs = performance.now() - (firstAt ?? began);
    const complete = outcome === 'done';
    // A cut reply keeps its words; a call whose arguments may be cut off is not run.
    if (complete) {
      for (const [k, part] of [...parts].sort((a, b) => a[0] - b[0])) x.calls.push(readCall({ id: part.id ?? `call_${this.requests}_${k}`, name: part.name, arguments: part.arguments }));
    }
    x.stoppedBy = !complete ? 'stopped' : x.calls.length > 0 ? 'call' : finish === 'length' ? 'limit' : 'end';
    if (outcome !== 'done' && outcome !== 'stopped') x.words = this.interrupted(x.words, outcome);
    return x;
  }

  /**
   * A scripted reply through llama-server itself: the prompt as the server's template renders the
   * request (`/apply-template`), then exactly the text that template renders for the reply, read by
   * `/completion` in the session's slot with `cache_prompt` (the slot and cache the chat path uses).
   * Calls are the script's, whose rendering the server's own template produced.
   */
  private async scripted(messages: WireMessage[], c: Conversation, s: ScriptedReply, o: GenerateOptions): Promise<Exchange> {
    if (!this.server.llama) {
      throw new ServerError('unsupported', this.url, `Scripted replies need llama-server (its /apply-template and /completion); the server at ${this.url} is not one.`);
    }
    const calls: WireToolCall[] = s.calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }));
    const assistant: WireMessage = { role: 'assistant', content: s.content, ...(calls.length ? { tool_calls: calls } : {}) };
    const prompt = await this.applyTemplate(messages, c);
    const text = await this.rendered(messages, assistant, prompt, c);
    // The reply is forced as tokens the server reads after the prompt (teacher forcing, as the
    // in-process engine forces scripted tokens): the server tokenizes prompt and reply as one text,
    // exactly as it will tokenize them in the next request, so the slot's cache stays valid to the
    // reply's end. (A GBNF literal forces the text but lets the server sample other tokenizations of
    // it: measured, the next request lost all but 2 of a 46-token reply.)
    const body = JSON.stringify({
      prompt: prompt + text, n_predict: 1, grammar: 'root ::= ""', temperature: 0, stream: true,
      cache_prompt: true, ...(this.slot === undefined ? {} : { id_slot: this.slot }),
    });
    const x: Exchange = { words: '', reasoning: '', calls: [], stoppedBy: 'end', outputTokens: 0, prefillMs: 0, generationMs: 0 };
    let evaluated: number | undefined;
    const outcome = await this.stream('/completion', body, o.signal, (event) => {
      if (event.stop === true) {
        evaluated = num(event.tokens_evaluated);
        readTimings(event, x);
      }
    });
    if (outcome === 'done') {
      const promptOnly = (await this.server.client.postJson<{ tokens: unknown[] }>('/tokenize', { content: prompt, add_special: true, parse_special: true })).tokens.length;
      const total = evaluated ?? x.promptTokens ?? promptOnly;
      x.promptTokens = promptOnly;
      x.outputTokens = Math.max(0, total - promptOnly) + 1;
      if (x.cached !== undefined) x.cached = Math.min(x.cached, promptOnly);
    }
    const generated = outcome === 'done' ? text : '';
    const complete = outcome === 'done' && generated === text;
    x.text = generated;
    x.words = s.content;
    o.onText?.(s.content);
    if (complete) x.calls = s.calls.map(readCall);
    x.stoppedBy = !complete ? 'stopped' : x.calls.length > 0 ? 'call' : 'end';
    if (outcome !== 'done' && outcome !== 'stopped') x.words = this.interrupted(x.words, outcome);
    return x;
  }

  /**
   * The text the server's template renders for the reply after `prompt`: the conversation with the
   * reply and a marker message after it, from where it departs from the prompt to the reply's end
   * (what it shares with the template's end of a turn and opening of the marker's, found once by
   * rendering a one-letter reply the same way). The marker is a tool result where the template takes one after any reply
   * (it opens no new turn, so a template that drops reasoning at a new query keeps the turn as the
   * next request will send it), else a message from the person. A template that writes its
   * generation prompt otherwise than a finished turn's opening (Qwen3.5's `<think>`) departs inside
   * the generation prompt: the reply is the finished turn's text from there, as a model that wrote
   * no reasoning would have written it.
   */
  private async rendered(messages: WireMessage[], assistant: WireMessage & { role: 'assistant' }, prompt: string, c: Conversation): Promise<string> {
    const mark = '\u2063KEEL-MARK\u2063';
    /** The reply's text after `before` rendered as `rendering`, or undefined where the continuation departs inside the history. */
    const between = async (before: WireMessage[], rendering: string, reply: WireMessage & { role: 'assistant' }, marker: 'tool' | 'user') => {
      const ids = reply.tool_calls?.map((call) => call.id) ?? [];
      const after: WireMessage[] = marker === 'user' ? [{ role: 'user', content: mark }]
        : (ids.length ? ids : ['keel-mark']).map((id) => ({ role: 'tool', tool_call_id: id, content: mark }));
      const full = await this.applyTemplate([...before, reply, ...after], c);
      let from = 0;
      while (from < rendering.length && full[from] === rendering[from]) from++;
      const history = from < rendering.length ? await this.applyTemplate(before, c, false) : '';
      const end = full.indexOf(mark, from);
      return end < 0 || !rendering.startsWith(history) || from < history.length ? undefined : full.slice(from, end);
    };
    // A template that writes a turn otherwise once a new message follows (Harmony's calls, Qwen3.5's
    // reasoning) departs inside the history: the reply's own text is then read from a conversation of one message.
    const alone: WireMessage[] = [{ role: 'user', content: 'K' }];
    const read = async (reply: WireMessage & { role: 'assistant' }, marker: 'tool' | 'user') =>
      await between(messages, prompt, reply, marker) ?? await between(alone, await this.applyTemplate(alone, c), reply, marker);
    if (!this.replyEnd) {
      const probe = async (marker: 'tool' | 'user') => {
        const k = await read({ role: 'assistant', content: 'K' }, marker);
        if (k === undefined) throw new Error('no reply');
        return { marker, text: k.slice(k.lastIndexOf('K') + 1) };
      };
      this.replyEnd = await probe('tool').catch(() => probe('user').catch(() => undefined));
    }
    const text = this.replyEnd && await read(assistant, this.replyEnd.marker);
    if (text === undefined) {
      throw new ServerError('unsupported', this.url, `The chat template of ${this.url} does not render a conversation as a prefix of its continuation, so scripted replies cannot be forced on it.`);
    }
    // What both end with is the template's; a reply with calls may end otherwise before it (Harmony's `<|call|>`), as the model writes it.
    const end = this.replyEnd!.text;
    let common = 0;
    while (common < end.length && common < text.length && text[text.length - 1 - common] === end[end.length - 1 - common]) common++;
    return text.slice(0, text.length - common);
  }

  /** How the template ends a reply and opens the marker message after it (`rendered`). */
  private replyEnd?: { marker: 'tool' | 'user'; text: string };

  /** A prompt's tokens as the server reads it (special tokens parsed, BOS added), each with its text. */
  private async serverTokens(prompt: string): Promise<ServerToken[]> {
    const r = await this.server.client.postJson<{ tokens: ServerToken[] }>('/tokenize', { content: prompt, add_special: true, parse_special: true, with_pieces: true });
    return r.tokens;
  }

  /** The server's render of `messages`, with the generation prompt or without. */
  private async applyTemplate(messages: WireMessage[], c: Conversation, generationPrompt = true): Promise<string> {
    const tools = wireTools(c.tools);
    const r = await this.server.client.postJson<{ prompt?: string }>('/apply-template', {
      messages, ...(tools.length ? { tools } : {}), ...(generationPrompt ? {} : { add_generation_prompt: false }),
    });
    if (typeof r.prompt !== 'string') throw malformed(this.url, '/apply-template without a prompt');
    return r.prompt;
  }

  /**
   * Streams one request. Returns 'done' when the stream finished, 'stopped' when the person stopped
   * it, or what cut it ('cut', 'timeout') when it broke after the reply began; before that, a cut or
   * a timeout is an error (nothing to keep).
   */
  private async stream(path: string, body: string, signal: AbortSignal | undefined, onEvent: (e: Record<string, unknown>) => void): Promise<'done' | 'stopped' | 'cut' | 'timeout'> {
    let res: Awaited<ReturnType<ServerEngine['server']['client']['request']>>;
    try {
      res = await this.server.client.request('POST', path, body, signal);
    } catch (e) {
      if (signal?.aborted) return 'stopped';
      throw e;
    }
    if (!res.body) throw malformed(this.url, 'an empty body');
    let events = 0;
    try {
      for await (const event of sseEvents(res.body, this.url, res.touch)) {
        events++;
        onEvent(event);
      }
      return 'done';
    } catch (e) {
      if (e instanceof ServerError) throw e;
      if (signal?.aborted) return 'stopped';
      const timedOut = (e as Error).name === 'AbortError' || (e as Error).name === 'TimeoutError';
      if (events === 0) {
        if (timedOut) throw this.server.client.timeoutError(path);
        throw new ServerError('cut', this.url, `The connection to ${this.url} was cut before the reply began (${(e as Error).message}). Check the server, then retry the turn.`);
      }
      return timedOut ? 'timeout' : 'cut';
    } finally {
      res.done();
    }
  }

  /** A reply cut mid-way is kept, marked, and said: the turn can be retried (regenerate). */
  private interrupted(words: string, why: 'cut' | 'timeout'): string {
    const how = why === 'cut' ? 'the connection was cut' : 'the server went quiet';
    this.server.client.notice(`The reply from ${this.url} was interrupted (${how}); the partial reply is kept, marked as interrupted. Retry the turn (regenerate) once the server is back.`);
    return `${words}${words ? '\n\n' : ''}[reply interrupted: ${how}]`;
  }
}

function readCall(c: { id: string; name: string; arguments: string }): ModelCall {
  const raw = storedCall(c);
  if (c.arguments.trim() === '') return { name: c.name, args: {}, raw };
  try {
    return { name: c.name, args: JSON.parse(c.arguments) as unknown, raw };
  } catch (e) {
    return { name: c.name, args: undefined, raw, problem: `the arguments of this ${c.name} call are not valid JSON (${(e as Error).message}). Write them as one JSON object.` };
  }
}

/**
 * llama-server's `timings`: cached prompt tokens, the prefill and generation times it measured, and
 * the tokens it drafted and saw accepted (only where it speculates and drafted any).
 */
function readTimings(event: Record<string, unknown>, x: Exchange): void {
  const t = event.timings as { cache_n?: number; prompt_n?: number; prompt_ms?: number; predicted_ms?: number; draft_n?: number; draft_n_accepted?: number } | undefined;
  if (!t) return;
  if (typeof t.draft_n === 'number' && typeof t.draft_n_accepted === 'number') x.drafts = { drafted: t.draft_n, accepted: t.draft_n_accepted };
  if (typeof t.prompt_ms === 'number') x.prefillMs = t.prompt_ms;
  if (typeof t.predicted_ms === 'number') x.generationMs = t.predicted_ms;
  if (x.cached === undefined && typeof t.cache_n === 'number') x.cached = t.cache_n;
  if (x.promptTokens === undefined && typeof t.cache_n === 'number' && typeof t.prompt_n === 'number') x.promptTokens = t.cache_n + t.prompt_n;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' ? v : undefined;
}
