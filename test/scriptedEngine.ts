import type {
  Conversation, Engine, GenerateOptions, Generation, ModelCall, PromptMap, StateMeta, StateRestore,
} from '../main/core/engine/types.js';

/**
 * An Engine for loop tests in plain Node: no model. It renders a conversation as plain text (one
 * line per part, results verbatim), counts one token per character, and keeps the last prompt as its
 * "cache", so reuse is the common prefix with the previous request — the way a real prefix cache
 * behaves. Replies come from the script (or the loop's own scripted text); a call is written
 * `CALL name {json}` on a line of its own.
 */
export class ScriptedEngine implements Engine {
  /** What the "cache" holds: the last prompt and its reply. */
  private cached = '';
  /** Replies in order, used when the loop passes no scripted text. */
  readonly replies: string[] = [];
  /** Set to make the next request report a loss of its own (as a server evicting its prefix would). */
  evictNext = false;
  /** Requests seen, as rendered. */
  readonly prompts: string[] = [];
  disposed = false;
  saved?: StateMeta;

  constructor(readonly id = 'scripted', readonly contextSize = 100_000, private readonly onGenerate?: (prompt: string) => Promise<void>) {}

  async countTokens(text: string): Promise<number> {
    return text.length;
  }

  async promptTokens(conversation: Conversation): Promise<number> {
    return this.promptText(conversation).length;
  }

  promptText(c: Conversation): string {
    const lines = [`system: ${c.system}`, `tools: ${JSON.stringify(c.tools)}`];
    for (const m of c.messages) {
      if (m.role === 'user') lines.push(`user: ${m.text}`);
      else for (const r of m.replies) lines.push(`model: ${r.raw ?? r.text}`, ...r.calls.flatMap((call) => [call.raw, `result: ${call.result}`]));
    }
    return `${lines.join('\n')}\nmodel: `;
  }

  /** One token per character; the cache holds the common prefix with the last prompt and reply, as `generate` reuses it. */
  async promptMap(c: Conversation): Promise<PromptMap> {
    const text = this.promptText(c);
    return { text, ends: Array.from({ length: text.length }, (_, i) => i + 1), cached: commonPrefix(text, this.cached), exact: true };
  }

  cachedTokens(): number {
    return this.cached.length;
  }

  async generate(c: Conversation, o: GenerateOptions): Promise<Generation> {
    const prompt = this.promptText(c);
    this.prompts.push(prompt);
    await this.onGenerate?.(prompt);
    let reused = commonPrefix(prompt, this.cached);
    const cachedBefore = this.cached.length;
    const evicted = this.evictNext;
    if (evicted) reused = 0;
    this.evictNext = false;
    const text = (o.scripted ?? this.replies.shift() ?? '').slice(0, o.maxTokens);
    const calls: ModelCall[] = [];
    const words: string[] = [];
    for (const line of text.split('\n')) {
      const m = /^CALL (\S+) (.*)$/.exec(line);
      if (!m) {
        if (calls.length === 0) words.push(line);
        continue;
      }
      try {
        calls.push({ name: m[1], args: JSON.parse(m[2]), raw: line });
      } catch {
        calls.push({ name: m[1], args: undefined, problem: `the arguments of ${m[1]} are not valid JSON`, raw: line });
      }
    }
    const said = words.join('\n');
    if (said) o.onText?.(said);
    this.cached = prompt + text;
    return {
      reply: { words: said, calls },
      text,
      stoppedBy: o.signal?.aborted ? 'stopped' : text.length >= o.maxTokens ? 'limit' : calls.length ? 'call' : 'end',
      usage: {
        promptTokens: prompt.length, reusedTokens: reused, newTokens: prompt.length - reused, outputTokens: text.length,
        cachedBefore, prefillMs: 0, generationMs: 0, rewritten: reused < Math.min(cachedBefore, prompt.length) && !evicted,
        ...(evicted ? { lossCause: 'server evicted the prefix' as const } : {}),
      },
    };
  }

  async saveState(_file: string, meta: StateMeta): Promise<void> {
    this.saved = meta;
  }

  async restoreState(): Promise<StateRestore> {
    return this.saved ? { restored: true, meta: this.saved } : { restored: false, reason: 'saved state unusable: none was saved' };
  }

  async dispose(): Promise<void> {
    this.disposed = true;
  }
}

function commonPrefix(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

export const callLine = (name: string, args: unknown) => `CALL ${name} ${JSON.stringify(args)}`;
