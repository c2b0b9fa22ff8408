/**
 * Benchmark of the server engine (issue 11): bench:reuse's scripted agent session (bench/reuse/script.ts)
 * through the real agent loop twice in one run —
 *   1. in process: the node-llama-cpp engine on the big generated model (as bench:reuse's Keel harness);
 *   2. server: the server engine on a real llama-server (scripts/buildLlamaServer.sh) serving the same
 *      GGUF with --jinja, one slot, one thread, the same context; replies forced through the server
 *      (/apply-template + /completion with a GBNF literal, the session's slot, cache_prompt).
 * Per engine: tokens evaluated anew against the ideal (each request's novel tokens), cached tokens
 * against the ideal reusable tokens (the server's own report for the server), the breaks with their
 * causes, and Keel's harness time per request (the run's wall time less the model's prefill and
 * generation time, over the requests: the loop, the tools, the store, and for the server the HTTP).
 * The ideal is measured on the server's own tokenizer: each prompt as the server's template renders
 * it, against the previous prompt and the reply text the slot evaluated.
 *
 *   npm run bench:server
 *   KEEL_BENCH_SEED, KEEL_REUSE_TURNS, KEEL_REUSE_CALLS, KEEL_REUSE_CONTEXT   as bench:reuse
 *   KEEL_SERVER_ONLY=server       skip the in-process engine
 *   KEEL_SERVER_ARCH=qwen35       the generated model of this architecture (main/llm/testModel/families.ts:
 *                                 qwen35 and lfm2 are hybrid, gpt-oss and gemma4 sliding window); default llama
 *
 * The last line is `server cached/ideal: X.XXX` (the goal is >= 0.990). Timing is printed, never
 * asserted; the run exits 1 when the session did not follow the script.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Conversation, GenerateOptions, Generation } from '../main/core/engine/types.js';
import type { LoopEvent } from '../main/core/turn/loop.js';
import { Session } from '../main/core/session/session.js';
import type { RequestRow } from '../main/core/state/types.js';
import { SqliteStore } from '../main/db/store.js';
import { loadModel } from '../main/llm/model.js';
import { BIG_MODEL_OPTIONS, TEST_MODEL_ARCHITECTURES, type TestModelArchitecture, writeTestModel } from '../main/llm/testModel/makeTestModel.js';
import { openAgent } from '../main/openEngine.js';
import { requireSandbox } from '../main/app/sessionDeps.js';
import { connectServer } from '../main/remote/connect.js';
import { ServerEngine } from '../main/remote/engine.js';
import { ServerClient } from '../main/remote/http.js';
import { wireMessages, wireTools } from '../main/remote/messages.js';
import { scriptReply } from '../main/remote/scripted.js';
import { startLlamaServer } from '../test/llamaServer.js';
import { appDeps } from './appDeps.js';
import { checkProblems } from './checks.js';
import { runKeel } from './reuse/keel.js';
import { analyse, novelTokens } from './reuse/measure.js';
import { fmt, secs } from './reuse/report.js';
import { generateScript, type Script } from './reuse/script.js';
import { makeWorkspace } from './reuse/tools.js';

const SEED = Number(process.env.KEEL_BENCH_SEED ?? 0x6b65656c);
const TURNS = Number(process.env.KEEL_REUSE_TURNS ?? 62);
const CALLS = Number(process.env.KEEL_REUSE_CALLS ?? 100);
const CONTEXT = Number(process.env.KEEL_REUSE_CONTEXT ?? 32768);
const ONLY = new Set((process.env.KEEL_SERVER_ONLY ?? 'local,server').split(','));
const ARCH = (process.env.KEEL_SERVER_ARCH ?? 'llama') as TestModelArchitecture;
if (!TEST_MODEL_ARCHITECTURES.includes(ARCH)) {
  process.stderr.write(`KEEL_SERVER_ARCH must be one of ${TEST_MODEL_ARCHITECTURES.join(', ')}, not ${ARCH}.\n`);
  process.exit(2);
}
const START = new Date('2026-11-30T23:20:00');
const NEXT_DAY = new Date('2026-12-01T00:40:00');

const started = performance.now();
const progress = (msg: string) => process.stderr.write(`[${secs(performance.now() - started).padStart(7)}] ${msg}\n`);

interface Figures {
  name: string;
  requests: number;
  newTokens: number;
  idealNew: number;
  cached: number;
  idealReusable: number;
  /** Requests whose cached tokens the server did not report. */
  unreported: number;
  breaks: Map<string, { count: number; lost: number }>;
  harnessMs: number;
  modelMs: number;
  elapsedMs: number;
  problems: string[];
}

function breaksOf(rows: RequestRow[]): Map<string, { count: number; lost: number }> {
  const out = new Map<string, { count: number; lost: number }>();
  for (const r of rows) {
    const lost = Math.max(0, r.cachedBefore - r.reusedTokens);
    if (!r.cause && lost === 0) continue;
    const c = out.get(r.cause ?? 'unnamed') ?? { count: 0, lost: 0 };
    c.count++;
    c.lost += lost;
    out.set(r.cause ?? 'unnamed', c);
  }
  return out;
}

async function runLocal(script: Script, modelPath: string): Promise<Figures> {
  const model = await loadModel({ modelPath, threads: 1, contextSize: CONTEXT });
  try {
    const run = await runKeel(script, model, { label: 'in-process', progress });
    analyse(run.requests);
    const rows = run.rows ?? [];
    const modelMs = rows.reduce((n, r) => n + r.prefillMs + r.generationMs, 0);
    const sum = (f: (r: (typeof run.requests)[number]) => number) => run.requests.reduce((n, r) => n + f(r), 0);
    return {
      name: 'in-process', requests: run.requests.length, newTokens: sum((r) => r.newTokens), idealNew: sum((r) => r.ideal),
      cached: sum((r) => r.reused), idealReusable: sum((r) => r.prompt.length - r.ideal), unreported: 0,
      breaks: breaksOf(rows), harnessMs: (run.elapsedMs - modelMs) / Math.max(1, rows.length), modelMs, elapsedMs: run.elapsedMs,
      problems: run.problems,
    };
  } finally {
    await model.dispose();
  }
}

/** The server engine, measuring each request's prompt and what the slot evaluated on the server's tokenizer. */
class MeasuredEngine extends ServerEngine {
  readonly measures: { prompt: number[]; evaluated: number[] }[] = [];
  measuringMs = 0;

  private get client(): ServerClient {
    return new ServerClient({ url: this.url });
  }

  private async tokens(content: string, special: boolean): Promise<number[]> {
    return (await this.client.postJson<{ tokens: number[] }>('/tokenize', { content, add_special: special, parse_special: true })).tokens;
  }

  override async generate(c: Conversation, o: GenerateOptions): Promise<Generation> {
    const t = performance.now();
    const tools = wireTools(c.tools);
    const applied = await this.client.postJson<{ prompt: string }>('/apply-template', { messages: wireMessages(c), ...(tools.length ? { tools } : {}) });
    const prompt = await this.tokens(applied.prompt, true);
    this.measuringMs += performance.now() - t;
    const r = await super.generate(c, o);
    const t2 = performance.now();
    this.measures.push({ prompt, evaluated: [...prompt, ...(await this.tokens(r.text, false))] });
    this.measuringMs += performance.now() - t2;
    return r;
  }
}

async function runServer(script: Script, modelPath: string): Promise<Figures> {
  const server = await startLlamaServer({ model: modelPath, contextSize: CONTEXT, slots: 1, threads: 1, alias: 'big' });
  const ws = makeWorkspace(script.files, 'keel_');
  const store = new SqliteStore(path.join(path.dirname(ws.root), 'keel.db'));
  const problems: string[] = [];
  try {
    const engine = new MeasuredEngine(await connectServer({ url: server.url, model: 'big' }));
    let now = START;
    // The session as the app builds it (main/app/sessionDeps.ts): the OS sandbox runs its commands; what
    // the gate still asks the person allows, as bench:reuse's Keel harness runs it.
    const { deps, missing } = appDeps({ store, dataFolder: path.join(path.dirname(ws.root), 'data'), now: () => now, approve: async () => 'allow' });
    await requireSandbox(deps, 'bench:server');
    const session = Session.create(deps, { root: ws.root, kind: 'agent', mode: 'auto', model: engine.id });
    const replies: string[] = [];
    const events: LoopEvent[] = [];
    const agent = openAgent({ session, store, engine, maxReplyTokens: 512, script: { next: () => replies.shift() }, onEvent: (e) => events.push(e) });
    const began = performance.now();
    for (const [i, turn] of script.turns.entries()) {
      if (turn.newDay) now = NEXT_DAY;
      replies.push(...turn.replies.map((r) => scriptReply(r.text, r.call ? [{ name: r.call.name, arguments: r.call.args }] : [])));
      const from = events.length;
      const answer = await agent.send(turn.words);
      const ran = events.slice(from).filter((e) => e.type === 'tool').map((e) => e.type === 'tool' && e.name);
      const expected = turn.replies.filter((r) => r.call).map((r) => r.call!.name);
      if (ran.join() !== expected.join()) problems.push(`turn ${i + 1}: ran ${ran.join(', ') || 'no call'}, the script has ${expected.join(', ') || 'none'}`);
      if (answer !== turn.replies[turn.replies.length - 1].text) problems.push(`turn ${i + 1}: answered ${JSON.stringify(answer.slice(0, 80))}`);
      for (const e of events.slice(from)) {
        if (e.type === 'tool' && /^\[#\w+\]\nError/.test(e.result.text)) problems.push(`turn ${i + 1}: ${e.name} failed: ${e.result.text.split('\n')[1]}`);
      }
      if (replies.length > 0) problems.push(`turn ${i + 1}: ${replies.length} scripted replies left unused`);
      replies.length = 0;
      if ((i + 1) % 10 === 0) progress(`server: turn ${i + 1}/${script.turns.length}`);
    }
    for (const m of missing) problems.push(m);
    const elapsedMs = performance.now() - began - engine.measuringMs;
    const rows = agent.requests();
    await agent.dispose();
    let before: number[] = [];
    let idealNew = 0;
    let idealReusable = 0;
    for (const m of engine.measures) {
      const novel = novelTokens(before as never, m.prompt as never);
      idealNew += novel;
      idealReusable += m.prompt.length - novel;
      before = m.evaluated;
    }
    const modelMs = rows.reduce((n, r) => n + r.prefillMs + r.generationMs, 0);
    return {
      name: 'server', requests: rows.length, newTokens: rows.reduce((n, r) => n + r.newTokens, 0), idealNew,
      cached: rows.reduce((n, r) => n + (r.engine?.server?.cachedTokens ?? 0), 0), idealReusable,
      unreported: rows.filter((r) => r.engine?.server?.cachedTokens === null).length,
      breaks: breaksOf(rows), harnessMs: (elapsedMs - modelMs) / Math.max(1, rows.length), modelMs, elapsedMs, problems,
    };
  } finally {
    store.close();
    ws.remove();
    await server.stop();
  }
}

async function main(): Promise<number> {
  const script = generateScript(SEED, TURNS, CALLS);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-bench-server-'));
  const modelPath = path.join(dir, 'big.gguf');
  writeTestModel(modelPath, { ...BIG_MODEL_OPTIONS, architecture: ARCH });
  const out = [
    `Keel server engine benchmark (issue 11) — bench:reuse's session, seed ${SEED}: ${script.turns.length} turns, ${script.calls} tool calls.`,
    `Model: generated ${ARCH}, embedding ${BIG_MODEL_OPTIONS.embedding}, ${BIG_MODEL_OPTIONS.layers} layers (${(fs.statSync(modelPath).size / 1e6).toFixed(0)} MB), 1 thread, context ${fmt(CONTEXT)}; the server: llama-server --jinja, 1 slot.`,
    '',
  ];
  const figures: Figures[] = [];
  try {
    if (ONLY.has('local')) {
      progress('in-process: starting');
      figures.push(await runLocal(script, modelPath));
    }
    progress('server: starting');
    figures.push(await runServer(script, modelPath));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  for (const f of figures) {
    out.push(`${f.name}: ${f.requests} requests in ${secs(f.elapsedMs)} (model ${secs(f.modelMs)})`);
    out.push(`  tokens evaluated anew: ${fmt(f.newTokens)} against ${fmt(f.idealNew)} ideal = ${(f.newTokens / Math.max(1, f.idealNew)).toFixed(3)}x`);
    out.push(`  cached tokens${f.name === 'server' ? ' (reported by server)' : ''}: ${fmt(f.cached)} of ${fmt(f.idealReusable)} ideal reusable = ${(f.cached / Math.max(1, f.idealReusable)).toFixed(3)}${f.unreported ? ` (${f.unreported} requests not reported)` : ''}`);
    out.push(`  breaks: ${f.breaks.size === 0 ? 'none' : [...f.breaks].map(([cause, b]) => `${cause} x${b.count} (${fmt(b.lost)} tokens lost)`).join('; ')}`);
    out.push(`  harness time per request: ${(f.harnessMs).toFixed(1)} ms (wall time less the model's prefill and generation)`);
    for (const p of f.problems) out.push(`  script not followed: ${p}`);
  }
  const server = figures.find((f) => f.name === 'server')!;
  out.push('', `server cached/ideal: ${(server.cached / Math.max(1, server.idealReusable)).toFixed(3)}`);
  process.stdout.write(`${out.join('\n')}\n`);
  return checkProblems('bench:server', figures.flatMap((f) => f.problems.map((p) => `${f.name}: ${p}`)));
}

main().then((code) => process.exit(code), (e: unknown) => {
  process.stderr.write(`${(e as Error)?.stack ?? String(e)}\n`);
  process.exit(1);
});
