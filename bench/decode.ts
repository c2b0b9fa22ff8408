/**
 * Benchmark of decoding (issue 37): ms per generated token at context fills of 4k, 16k and 32k
 * tokens, with speculation (main/llm/speculation.ts: drafts by prompt lookup over the session's own
 * text) off and on, and flash attention off and on, on a generated model (main/llm/testModel), CPU.
 *
 * Each fill is one session through Keel's own engine (LlamaEngine, the request path the app runs):
 * its first message is a source file of about `fill` tokens and an edit request; its first reply
 * (untimed) reads the file in. That state is saved and restored into a second session, so both
 * start from the very same cache; then the same edit requests go to both, taking turns, each reply
 * added to both conversations, so later replies can copy from earlier ones and from the file, as a
 * coding agent's edits do. Replies are greedy; without flash attention the two sessions' replies
 * must be byte-identical (the bench exits 1 otherwise); with it they may differ, and are counted
 * (llama.cpp's flash attention results depend on the batch size: speculation.ts). ms/token is the
 * median reply's generation time over its tokens after the first (the first comes out of the
 * prefill); acceptance is the engine's own record per request.
 *
 * The generated model has random weights: its greedy replies copy from the prompt only as far as
 * they happen to repeat themselves, so the acceptance here is this model's, not a trained one's.
 *
 *   npm run bench:decode
 *   npm run bench:decode -- --replies 40 --tokens 64     the issue's 40 replies (long: tens of minutes here)
 *   --fills 4096,16384,32768   context fills (each must leave room within the model's trained context)
 *   --big                      the ≈26M F16 model (test-models/big.gguf) instead of the small default one
 *
 * The last line is `decode speed-up with speculation at 16k: X.XX×` (ms/token off over on, flash
 * attention off: where speculation's auto drafts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Conversation } from '../main/core/engine/types.js';
import { LlamaEngine } from '../main/llm/engine.js';
import { loadModel, type LoadedModel } from '../main/llm/model.js';
import { sameAloneAndInBatch, speculationUsed } from '../main/llm/speculation.js';
import { BIG_MODEL_OPTIONS, writeTestModel } from '../main/llm/testModel/makeTestModel.js';
import { median } from './measure.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function flag(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1] : fallback;
}
const REPLIES = Number(flag('replies', '4'));
const TOKENS = Number(flag('tokens', '32'));
const FILLS = flag('fills', '4096,16384,32768').split(',').map(Number);
const BIG = process.argv.includes('--big');
/** Room left after the fill: the edit requests and every reply of the session. */
const ROOM = (REPLIES + 2) * (TOKENS + 64);

/** One line of the file being edited; `i` makes each line its own (a lookup must find the right one). */
const line = (i: number) => `export function step${i}(queue: Job[]): number {\n  return queue.filter((job) => job.tries < ${i % 7}).length;\n}\n`;
const ask = (i: number) => `Change step${i * 37} so that it counts jobs with ${i + 1} tries or more, and show the lines you change.`;

/** The file as text of about `fill` tokens, measured with the model's own tokenizer. */
function fileOf(loaded: LoadedModel, fill: number): string {
  const perLine = loaded.model.tokenize(line(100) + line(101)).length / 2;
  let lines = Math.max(1, Math.floor(fill / perLine));
  let text = Array.from({ length: lines }, (_, i) => line(i)).join('');
  while (loaded.model.tokenize(text).length > fill - 64 && lines > 1) text = Array.from({ length: --lines }, (_, i) => line(i)).join('');
  return text;
}

interface Figures {
  /** ms per token of each reply (its tokens after the first). */
  perReply: number[];
  accepted: number;
  refuted: number;
  /** Replies whose greedy text differed from the other session's. */
  differ: number;
}
/** The median reply's: a moment the shared machine was busy falls on one reply, not on the figure. */
const msPerToken = (f: Figures) => median(f.perReply);

async function session(loaded: LoadedModel, fill: number, stateFile: string): Promise<{ off: Figures; on: Figures }> {
  const variant = (value: 'off' | 'on') => new LlamaEngine({ ...loaded, setup: { ...loaded.setup, speculation: speculationUsed(value, 'prefix', false) } });
  const off = variant('off');
  const on = variant('on');
  const zero = (): Figures => ({ perReply: [], accepted: 0, refuted: 0, differ: 0 });
  const figures = { off: zero(), on: zero() };
  try {
    const conversation = (messages: Conversation['messages']): Conversation => ({ system: 'You are a coding agent.', tools: [], messages, promptDate: '2026-12-07' });
    let messages: Conversation['messages'] = [{ role: 'user', text: `src/queue.ts:\n${fileOf(loaded, fill)}\n${ask(0)}` }];
    const first = await off.generate(conversation(messages), { maxTokens: TOKENS, temperature: 0 });
    await off.saveState(stateFile, {});
    const restored = await on.restoreState(stateFile);
    if (!restored.restored) throw new Error(`the second session could not start from the first one's cache: ${restored.reason}`);
    messages = [...messages, { role: 'model', replies: [{ text: first.text, calls: [] }] }];
    for (let i = 1; i <= REPLIES; i++) {
      messages = [...messages, { role: 'user', text: ask(i) }];
      const replies: Record<'off' | 'on', string> = { off: '', on: '' };
      // The two sessions take turns, so a busy moment of the machine falls on both alike.
      for (const [name, engine] of (i % 2 ? [['off', off], ['on', on]] : [['on', on], ['off', off]]) as ['off' | 'on', LlamaEngine][]) {
        const r = await engine.generate(conversation(messages), { maxTokens: TOKENS, temperature: 0 });
        replies[name] = r.text;
        if (r.usage.outputTokens > 1) figures[name].perReply.push(r.usage.generationMs / (r.usage.outputTokens - 1));
        figures[name].accepted += r.usage.engine?.speculation?.accepted ?? 0;
        figures[name].refuted += r.usage.engine?.speculation?.refuted ?? 0;
      }
      if (replies.on !== replies.off) figures.on.differ++;
      messages = [...messages, { role: 'model', replies: [{ text: replies.off, calls: [] }] }];
    }
  } finally {
    await off.dispose();
    await on.dispose();
  }
  return figures;
}

async function main(): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-decode-'));
  const modelFile = BIG ? path.join(REPO, 'test-models', 'big.gguf') : path.join(dir, 'small.gguf');
  if (!fs.existsSync(modelFile)) writeTestModel(modelFile, BIG ? BIG_MODEL_OPTIONS : {});
  const loaded = await loadModel({ modelPath: modelFile, settings: { backend: 'cpu', contextSize: 512 } });
  const problems: string[] = [];
  const speedUps = new Map<string, number>();
  try {
    const trained = loaded.model.trainContextSize;
    // A fill the trained context cannot hold with the replies is filled as far as it can be, and said so.
    const fills = [...new Set(FILLS.map((f) => Math.min(f, trained - ROOM)))].filter((f) => f > 0);
    for (const f of FILLS.filter((x) => x + ROOM > trained)) console.log(`fill ${f}: the model was trained for ${trained} tokens and the replies need ${ROOM} more: filled to ${trained - ROOM} instead`);
    console.log(`bench:decode on ${modelFile} (${(fs.statSync(modelFile).size / 1e6).toFixed(1)} MB, trained for ${trained} tokens), CPU, ${loaded.setup.threads} threads`);
    console.log(`${REPLIES} edit replies of up to ${TOKENS} tokens per fill, greedy; speculation drafts from the session's own text\n`);
    console.log('fill     flash attention   spec off ms/token   spec on ms/token   accepted/drafted   speed-up   replies differ');
    for (const flashAttention of [false, true]) {
      const context = await loaded.model.createContext({ contextSize: Math.max(...fills) + ROOM, sequences: 2, threads: loaded.setup.threads, flashAttention });
      // Replies are promised the same only without flash attention, and there only where measured so.
      const sameInBatch = !flashAttention && await sameAloneAndInBatch(context, loaded.model);
      if (!flashAttention && !sameInBatch) console.log('(flash attention off: a token\'s results differ alone and in a batch on this machine, so replies may differ and auto does not draft)');
      try {
        for (const fill of fills) {
          const { off, on } = await session({ ...loaded, context }, fill, path.join(dir, `state-${fill}-${flashAttention}.json`));
          // Where a token's results are the same alone and in a batch (measured, without flash attention),
          // a draft checked in a batch changes nothing: the replies must be the same. Elsewhere they may differ (speculation.ts).
          if (sameInBatch && on.differ) problems.push(`fill ${fill}: ${on.differ} of ${REPLIES} greedy replies differ with speculation, flash attention off`);
          const drafted = on.accepted + on.refuted;
          const speedUp = msPerToken(off) / msPerToken(on);
          speedUps.set(`${fill}/${flashAttention}`, speedUp);
          console.log(`${`${Math.round(fill / 1024)}k`.padEnd(8)} ${(flashAttention ? 'on' : 'off').padEnd(17)} ${msPerToken(off).toFixed(1).padStart(17)}   ${msPerToken(on).toFixed(1).padStart(16)}   ${`${on.accepted}/${drafted}${drafted ? ` (${Math.round((100 * on.accepted) / drafted)} %)` : ''}`.padStart(16)}   ${speedUp.toFixed(2).padStart(7)}×   ${`${on.differ}/${REPLIES}`.padStart(14)}`);
        }
      } finally {
        await context.dispose();
      }
    }
  } catch (err) {
    problems.push(`a phase failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
  } finally {
    await loaded.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  for (const p of problems) console.error(`PROBLEM: ${p}`);
  // At 16k without flash attention: where speculation's auto uses it, since only there are replies unchanged.
  const speedUp = speedUps.get('16384/false') ?? NaN;
  console.log(`\ndecode speed-up with speculation at 16k: ${Number.isFinite(speedUp) ? speedUp.toFixed(2) : 'n/a'}×`);
  return problems.length ? 1 : 0;
}

process.exitCode = await main();
