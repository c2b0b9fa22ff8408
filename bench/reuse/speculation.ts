/**
 * Speculation in bench:reuse (issue 37). The harnesses force every reply token by token, and a draft
 * is checked against the token the model itself would have sampled, not the forced one
 * (node-llama-cpp's speculative evaluation), so a forced run says nothing of how often drafts are
 * right. Keel's run speculates only where its load would (speculation.ts speculationUsed: auto
 * drafts only without flash attention); its drafts, if any, are summed from its request rows.
 *
 * The check is greedy, not forced: two sessions of Keel's own engine on the bench's model, in a
 * context with flash attention off (where speculation's auto drafts), one drafting and one not,
 * start from the very same cache (a saved state) holding Keel's system prompt and the workspace's
 * files, about `fill` tokens of the session's own text, and answer the same edit requests
 * greedily, each reply added to both conversations. Their replies must be byte-identical (a
 * difference is a check problem) where the context gives a token the same results alone as in a
 * batch (speculation.ts sameAloneAndInBatch, as Keel's load measures; elsewhere auto does not draft and
 * differences are only counted); the drafting one's acceptance and both decode costs are what
 * speculation does at that context on this model (random weights: its replies copy from the
 * prompt only as far as they happen to, so the acceptance is this model's, not a trained one's).
 */
import path from 'node:path';
import type { Conversation } from '../../main/core/engine/types.js';
import { LlamaEngine } from '../../main/llm/engine.js';
import type { LoadedModel } from '../../main/llm/model.js';
import { sameAloneAndInBatch, speculationUsed } from '../../main/llm/speculation.js';
import type { RequestRow } from '../../main/core/state/types.js';
import type { Script } from './script.js';

export interface SpeculationCheck {
  /** Tokens of the first prompt (the system prompt, the files and the first request). */
  fill: number;
  replies: number;
  /** Drafted tokens the model accepted and refuted, in the drafting session. */
  accepted: number;
  refuted: number;
  /** Decode ms per token (a reply's tokens after the first) without and with drafts, over all replies. */
  msOff: number;
  msOn: number;
  /** Whether the context gives a token the same results alone as in a batch: only then are drafts promised to change no reply. */
  sameInBatch: boolean;
  /** Replies whose greedy text differed between the two sessions. */
  differing: number;
  /** Each differing reply where none may differ. */
  problems: string[];
}

/** Drafts Keel's run made, from the rows it recorded (speculation.ts SpeculationFigures). */
export function runDrafts(rows: readonly RequestRow[]): { accepted: number; refuted: number } {
  let accepted = 0;
  let refuted = 0;
  for (const r of rows) {
    accepted += r.engine?.speculation?.accepted ?? 0;
    refuted += r.engine?.speculation?.refuted ?? 0;
  }
  return { accepted, refuted };
}

/** The workspace's files as one message of about `fill` tokens (cycled where they are shorter: a file read again). */
function filesMessage(model: LoadedModel, files: Record<string, string>, fill: number): string {
  const parts: string[] = [];
  let tokens = 0;
  const entries = Object.entries(files);
  for (let i = 0; tokens < fill; i++) {
    const [rel, text] = entries[i % entries.length];
    const part = `${rel}:\n${text}\n`;
    parts.push(part);
    tokens += model.model.tokenize(part).length;
  }
  return parts.join('\n');
}

/** An edit request on a line of one of the files (a line the replies can copy from the prompt). */
function ask(files: Record<string, string>, i: number): string {
  const entries = Object.entries(files).filter(([, text]) => text.includes('\n'));
  const [rel, text] = entries[(i * 5) % entries.length];
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  return `In ${rel}, change the line \`${lines[(i * 7) % lines.length].trim()}\` to handle an empty queue, and show the lines you change.`;
}

export async function checkSpeculation(
  model: LoadedModel, script: Script, o: { dir: string; system: string; fill: number; replies: number; tokens: number },
): Promise<SpeculationCheck> {
  const room = (o.replies + 2) * (o.tokens + 96);
  const context = await model.model.createContext({ contextSize: o.fill + room + 512, sequences: 2, threads: model.setup.threads, flashAttention: false });
  const sameInBatch = await sameAloneAndInBatch(context, model.model);
  const variant = (value: 'off' | 'on') => new LlamaEngine({ ...model, context, setup: { ...model.setup, speculation: speculationUsed(value, 'prefix', false, sameInBatch) } });
  const off = variant('off');
  const on = variant('on');
  const out: SpeculationCheck = { fill: 0, replies: o.replies, accepted: 0, refuted: 0, msOff: NaN, msOn: NaN, sameInBatch, differing: 0, problems: [] };
  const ms = { off: { ms: 0, tokens: 0 }, on: { ms: 0, tokens: 0 } };
  try {
    const conversation = (messages: Conversation['messages']): Conversation => ({ system: o.system, tools: [], messages, promptDate: '2026-12-01' });
    const files = filesMessage(model, script.files, o.fill - model.model.tokenize(o.system).length);
    let messages: Conversation['messages'] = [{ role: 'user', text: `${files}\n${ask(script.files, 0)}` }];
    out.fill = await off.promptTokens(conversation(messages));
    // The first reply (untimed) reads the files in; the drafting session starts from that very cache.
    const first = await off.generate(conversation(messages), { maxTokens: o.tokens, temperature: 0 });
    const stateFile = path.join(o.dir, 'speculation-check.state');
    await off.saveState(stateFile, {});
    const restored = await on.restoreState(stateFile);
    if (!restored.restored) throw new Error(`the drafting session could not start from the same cache: ${restored.reason}`);
    messages = [...messages, { role: 'model', replies: [{ text: first.text, calls: [] }] }];
    for (let i = 1; i <= o.replies; i++) {
      messages = [...messages, { role: 'user', text: ask(script.files, i) }];
      const text: Record<'off' | 'on', string> = { off: '', on: '' };
      // The two take turns going first, so a busy moment of the shared machine falls on both alike.
      for (const name of (i % 2 ? ['off', 'on'] : ['on', 'off']) as ('off' | 'on')[]) {
        const r = await (name === 'on' ? on : off).generate(conversation(messages), { maxTokens: o.tokens, temperature: 0 });
        text[name] = r.text;
        ms[name].ms += r.usage.generationMs;
        ms[name].tokens += Math.max(0, r.usage.outputTokens - 1);
        out.accepted += r.usage.engine?.speculation?.accepted ?? 0;
        out.refuted += r.usage.engine?.speculation?.refuted ?? 0;
      }
      if (text.on !== text.off) out.differing++;
      if (text.on !== text.off && sameInBatch) {
        out.problems.push(`speculation check: greedy reply ${i} differs with speculation (without: ${JSON.stringify(text.off.slice(0, 60))}, with: ${JSON.stringify(text.on.slice(0, 60))})`);
      }
      messages = [...messages, { role: 'model', replies: [{ text: text.off, calls: [] }] }];
    }
    out.msOff = ms.off.ms / Math.max(1, ms.off.tokens);
    out.msOn = ms.on.ms / Math.max(1, ms.on.tokens);
  } finally {
    await off.dispose();
    await on.dispose();
    await context.dispose();
  }
  return out;
}
