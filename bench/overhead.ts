/**
 * Benchmark of the harness's own cost per request (issue 10, item 7): everything Keel does for a
 * request besides the model's evaluation — building the conversation from the session and store,
 * rendering it with the template, tokenizing, comparing with the cache, splicing, recording — with
 * 8k, 32k and 128k tokens of history; and the time to read a reply as it streams (1k and 4k tokens).
 *
 *   npm run bench:overhead
 *   KEEL_OVERHEAD_SIZES=8192,32768,131072   the history sizes (tokens)
 *   KEEL_OVERHEAD_REPEATS=<int>             measured requests per size (default 21; the median is shown)
 *   KEEL_OVERHEAD_STORE=<folder>            where the session store lives (default the bench's temp folder, on
 *                                           disk as the app's is); /dev/shm leaves out the disk's commit waits
 *
 * The model is generated for the bench (tiny, with a 140k-token trained context, so the local engine
 * allows 128k of history; its answers are scripted, so its weights play no part). The history is a
 * real agent session: each turn reads one generated source file (a distinct one, so no stub stands
 * in for it) and answers; there is one session per size, each on its own context. Short turns are
 * then measured through the real Agent (`agent.send`), one at each size in turn, so the machine's
 * drift over the run weighs on every size alike: the harness time of a request is the turn's wall time less the model's own time,
 * which the request records itself (prefill: until the first token; generation: the rest, one
 * token here, since the reply is empty). The reply figures feed a scripted reply's tokens through
 * the reader a request uses (request.ts `ReplyReader`), without a model evaluating them.
 *
 * The sessions are built as the app builds them (main/app/sessionDeps.ts); each turn's checkpoint (a walk
 * of the workspace) is part of the harness time and also shown on its own. It exits 1 when a check
 * fails (a read that failed, a scripted reply left unused: named on stderr).
 *
 * Printed last, for the goals: `overhead 128k/8k: X.XX` (<= 2.00) and `parse 4k/1k: X.XX` (<= 5.00).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Session, type SessionDeps } from '../main/core/session/session.js';
import type { RequestRow } from '../main/core/state/types.js';
import { SqliteStore } from '../main/db/store.js';
import type { LlamaEngine } from '../main/llm/engine.js';
import { loadModel, type LoadedModel } from '../main/llm/model.js';
import { ReplyReader } from '../main/llm/request.js';
import { writeTestModel } from '../main/llm/testModel/makeTestModel.js';
import { formatCall } from '../main/llm/toolCalls.js';
import { openAgent, openEngine } from '../main/openEngine.js';
import type { AgentLoop } from '../main/core/turn/loop.js';
import { appDeps } from './appDeps.js';
import { checkProblems } from './checks.js';
import { median } from './measure.js';
import { Rng } from './prng.js';
import { RunProfile } from './reuse/profile.js';
import { fmt, table } from './reuse/report.js';

const SIZES = (process.env.KEEL_OVERHEAD_SIZES ?? '8192,32768,131072').split(',').map(Number);
const REPEATS = Number(process.env.KEEL_OVERHEAD_REPEATS ?? 21);
/** The trained context of the bench's model, and the context it runs with: 128k of history and a reply. */
const CONTEXT = 143_360;
const FILES = 160;

const started = performance.now();
/** Times the sessions' checkpoints (and store calls), so the harness's figure can be read without them. */
const profile = new RunProfile();
const progress = (msg: string) => process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(1).padStart(7)} s] ${msg}\n`);

async function main(): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-overhead-'));
  const modelPath = path.join(dir, 'long.gguf');
  // As small as a model gets (the cost of evaluating 128k tokens grows with its width), with a long trained context.
  writeTestModel(modelPath, { contextLength: CONTEXT, embedding: 16, layers: 1, heads: 1, ff: 32 });
  const out: string[] = [`Keel harness overhead benchmark — generated model, context ${fmt(CONTEXT)}`, ''];
  const sessions: Grown[] = [];
  const problems: string[] = [];
  try {
    const root = path.join(dir, 'ws');
    const rng = new Rng(7);
    for (let i = 0; i < FILES; i++) writeFile(path.join(root, `src/module${i}.ts`), sourceFile(rng, i, 90));
    const storeDir = process.env.KEEL_OVERHEAD_STORE ? fs.mkdtempSync(path.join(process.env.KEEL_OVERHEAD_STORE, 'keel-overhead-')) : dir;
    const store = new SqliteStore(path.join(storeDir, 'keel.db'));
    // The sessions as the app builds them (main/app/sessionDeps.ts: checkpoints, hooks, the sandbox's runner included).
    // Their checkpoints' time is timed apart (a column of its own), so the harness figure compares with runs before sessions had them.
    const built = appDeps({ store, dataFolder: path.join(dir, 'data'), now: () => new Date('2026-12-01T10:00:00') });
    const { missing } = built;
    const deps = profile.wrap(built.deps);
    try {
      for (const target of SIZES) sessions.push(await grow(await loadModel({ modelPath, threads: 2, contextSize: CONTEXT }), deps, store, root, target));
      const harness = await measureHarness(sessions);
      out.push(table(['history (prompt tokens)', 'requests', 'harness ms (median)', 'min', 'max', 'of which checkpoints ms (median)', 'prefill ms (model, excluded)'], harness.map((h) => [
        fmt(h.prompt), String(h.samples.length), median(h.samples).toFixed(1), Math.min(...h.samples).toFixed(1), Math.max(...h.samples).toFixed(1),
        median(h.checkpoints).toFixed(1), median(h.prefill).toFixed(1),
      ])));
      const parse = measureParse(sessions[0]);
      out.push('', table(['reply tokens', 'read ms (median of 5)', 'µs per token'], parse.map((p) => [fmt(p.tokens), p.ms.toFixed(1), (1000 * p.ms / p.tokens).toFixed(1)])));
      const first = harness[0];
      const last = harness[harness.length - 1];
      out.push('', `overhead ${label(last.target)}/${label(first.target)}: ${(median(last.samples) / median(first.samples)).toFixed(2)}`);
      out.push(`parse ${label(parse[1].tokens)}/${label(parse[0].tokens)}: ${(parse[1].ms / parse[0].ms).toFixed(2)}`);
      problems.push(...missing, ...sessions.flatMap((s) => s.problems));
    } finally {
      store.close();
      if (storeDir !== dir) fs.rmSync(storeDir, { recursive: true, force: true });
    }
  } finally {
    for (const s of sessions) await s.model.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(out.join('\n') + '\n');
  return checkProblems('bench:overhead', problems);
}

const label = (n: number) => `${Math.round(n / 1024)}k`;

/** A real agent session grown to a size, on its own model context (the sizes together do not fit in one). */
interface Grown {
  target: number; model: LoadedModel; engine: LlamaEngine; agent: AgentLoop; replies: string[]; rows: RequestRow[]; date: string;
  /** What went otherwise than scripted (a read that failed, a reply left unused). */
  problems: string[];
}

/** A real agent session grown to `target` tokens: each turn reads a file (a distinct one, so no stub stands in for it), then answers. */
async function grow(model: LoadedModel, deps: SessionDeps, store: SqliteStore, root: string, target: number): Promise<Grown> {
  const session = Session.create(deps, { root, kind: 'agent', mode: 'auto', model: model.path });
  const replies: string[] = [];
  const rows: RequestRow[] = [];
  const problems: string[] = [];
  const engine = openEngine({ kind: 'local', model }) as LlamaEngine;
  const agent = openAgent({
    session, store, engine, maxReplyTokens: 64, compactAt: 1,
    script: { next: () => replies.shift() },
    onEvent: (e) => {
      if (e.type === 'request') rows.push(e.request);
      if (e.type === 'tool' && /^\[#\w+\]\nError/.test(e.result.text)) problems.push(`${fmt(target)}: ${e.name} failed: ${e.result.text.split('\n')[1]}`);
    },
  });
  const syntax = engine.syntax(session.promptDate);
  for (let read = 0; await agent.promptTokens() < target; read++) {
    if (read >= FILES) throw new Error(`${FILES} files are not enough for ${target} tokens`);
    replies.push(formatCall(syntax, 'read', { path: `src/module${read}.ts` }), `Read module${read}.`);
    await agent.send(`Read src/module${read}.ts.`);
    if (replies.length > 0) problems.push(`${fmt(target)}: read ${read}: ${replies.splice(0).length} scripted replies left unused`);
  }
  progress(`history at ${fmt(await agent.promptTokens())} tokens`);
  return { target, model, engine, agent, replies, rows, date: session.promptDate, problems };
}

interface SizeFigures { target: number; prompt: number; samples: number[]; prefill: number[]; checkpoints: number[] }

/**
 * REPEATS short turns on each session, taken in turn (one at each size, then the next round), so
 * the machine's drift over the run weighs on every size alike. The first round warms up and is left out.
 */
async function measureHarness(sessions: Grown[]): Promise<SizeFigures[]> {
  const figures = sessions.map((s): SizeFigures => ({ target: s.target, prompt: 0, samples: [], prefill: [], checkpoints: [] }));
  for (let round = 0; round < REPEATS + 1; round++) {
    for (const [i, s] of sessions.entries()) {
      s.replies.push('');
      const cp0 = profile.total('checkpoints.');
      const t0 = performance.now();
      await s.agent.send(`Go on (${round}).`);
      const wall = performance.now() - t0;
      const cp = profile.total('checkpoints.') - cp0;
      if (s.replies.length > 0) s.problems.push(`${fmt(s.target)}: round ${round}: the scripted reply was left unused`);
      const row = s.rows[s.rows.length - 1];
      if (round === 0) continue;
      figures[i].samples.push(wall - row.prefillMs - row.generationMs);
      figures[i].prefill.push(row.prefillMs);
      figures[i].checkpoints.push(cp);
      figures[i].prompt = row.promptTokens;
    }
  }
  return figures;
}

/** A reply of words and then one long call, as the model writes it, read through the request's reader. */
function measureParse({ model, engine, date }: Grown): { tokens: number; ms: number }[] {
  const reading = engine.replyReading({ system: '', tools: [], messages: [{ role: 'user', text: 'Go on.' }], promptDate: date });
  const syntax = engine.syntax(date);
  const rng = new Rng(11);
  return [1024, 4096].map((target) => {
    const tokens = replyTokens(model, (n) => `I will add the handler to the module now.\n\n${formatCall(syntax, 'write', { path: 'src/handler.ts', content: sourceFile(rng, 0, n) })}`, target);
    const samples: number[] = [];
    // The first run warms the reader's code up (its figure is left out), so both sizes are timed warm.
    for (let run = -1; run < 5; run++) {
      const reader = new ReplyReader({ model: model.model, ...reading });
      const t0 = performance.now();
      let stop: string | undefined;
      for (const token of tokens) if ((stop = reader.add(token))) break;
      reader.finish();
      if (run >= 0) samples.push(performance.now() - t0);
      if (stop !== 'call' || reader.length !== tokens.length) throw new Error(`the ${target}-token reply was read as ${stop ?? 'unfinished'} after ${reader.length} tokens`);
    }
    return { tokens: tokens.length, ms: median(samples) };
  });
}

/** The tokens of the first reply `make(lines)` gives that reaches `target` tokens. */
function replyTokens(model: LoadedModel, make: (lines: number) => string, target: number) {
  for (let lines = 8; ; lines += 4) {
    const tokens = model.model.tokenize(make(lines), true);
    if (tokens.length >= target) return tokens;
  }
}

/** A generated TypeScript module of about `length` lines. */
function sourceFile(rng: Rng, n: number, length: number): string {
  const lines = [`// module ${n}: queue handlers`, `import { lease } from './lease.js';`, ''];
  for (let f = 0; lines.length < length; f++) {
    const name = `handle${n}_${f}`;
    lines.push(`export function ${name}(job: { id: number; tries: number }): string {`);
    lines.push(`  if (job.tries > ${rng.int(2, 9)}) return 'dead:' + job.id;`);
    lines.push(`  return lease(job.id, ${rng.int(100, 999)}) ? 'ok' : 'retry';`);
    lines.push('}', '');
  }
  return lines.join('\n') + '\n';
}

function writeFile(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

main().then((code) => process.exit(code), (err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
