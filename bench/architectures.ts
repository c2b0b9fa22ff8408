/**
 * Benchmark of cache reuse on the architectures people run now (issue 31): the same scripted agent
 * session (bench/architectures/scenario.ts: tool calls, an edit, an undo, an edit and resend, a
 * rewind, a regenerate, reasoning where the family writes it; past 16k tokens) on a generated model
 * of each architecture (main/llm/testModel: hybrid and sliding-window ones beside a plain
 * transformer), through three harnesses:
 *   keel    the real agent loop, in process (checkpoints where the next request can depart);
 *   stock   node-llama-cpp's LlamaChatSession with its default checkpoints (every 8,192 tokens);
 *   server  Keel's server engine on a real llama-server started with its defaults (--jinja, one slot).
 *
 * Ideal: each request's prompt tokens after its first difference from what the previous request
 * left evaluated (at least one) — what a plain transformer's cache, which can be cut back to any
 * prefix, would evaluate. In process the tokens evaluated are measured on the sequence (re-reads
 * from a checkpoint or from token 0 included); on the server they are the prompt less the cached
 * tokens the server reports, against the in-process ideal of the same session.
 *
 *   npm run bench:architectures
 *   KEEL_ARCH_ONLY=qwen35,gemma4     these architectures only
 *   KEEL_ARCH_HARNESSES=keel,stock   these harnesses only (default keel,stock,server)
 *   KEEL_ARCH_TURNS=<int>            turns of the session (default 30)
 *   KEEL_ARCH_SERVER_ARGS="--checkpoint-min-step 0"  more llama-server flags (default: none, its defaults)
 *   KEEL_ARCH_WINDOW_CACHE=checkpoints  sliding-window models keep their window and checkpoints
 *                                    (default auto: the full window cache where memory allows, as the app does)
 *
 * One line per model, `ARCH new/ideal: keel X.XX× stock Y.YY× server Z.ZZ×`, and last
 * `architectures worst new/ideal: X.XX× (N of N models ≤ 1.05×)` (Keel's). Figures are printed,
 * never asserted; it exits 1 when a harness did not follow the script.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LlamaContextSequence } from 'node-llama-cpp';
import { DEFAULT_PROMPTS_DIR, buildSystemPrompt } from '../main/core/prompts/buildSystemPrompt.js';
import type { LlamaEngine } from '../main/llm/engine.js';
import { modelInsights } from '../main/llm/fit.js';
import { loadLlama, loadModel } from '../main/llm/model.js';
import { nativeReplies } from '../main/llm/testModel/nativeReplies.js';
import { ARCHITECTURE_MODELS } from '../main/llm/testModel/architectureModels.js';
import { writeTestModel } from '../main/llm/testModel/makeTestModel.js';
import { generationOpensThought } from '../main/llm/generationPrompt.js';
import { sessionWrapper } from '../main/llm/wrapper.js';
import { openEngine } from '../main/openEngine.js';
import { connectServer } from '../main/remote/connect.js';
import { ServerEngine } from '../main/remote/engine.js';
import { scriptReply } from '../main/remote/scripted.js';
import { startLlamaServer } from '../test/llamaServer.js';
import { architectureOf } from '../main/llm/architecture.js';
import { checkProblems } from './checks.js';
import { runKeel } from './architectures/keel.js';
import { scenario, type Scenario, type ThoughtReply } from './architectures/scenario.js';
import { runStock } from './architectures/stock.js';
import { analyse, type RequestMeasure } from './reuse/measure.js';
import { fmt, secs } from './reuse/report.js';
import { plainFunctions } from './reuse/tools.js';

const ONLY = process.env.KEEL_ARCH_ONLY?.split(',');
const HARNESSES = new Set((process.env.KEEL_ARCH_HARNESSES ?? 'keel,stock,server').split(','));
const TURNS = Number(process.env.KEEL_ARCH_TURNS ?? 30);
const SERVER_ARGS = process.env.KEEL_ARCH_SERVER_ARGS?.split(' ').filter(Boolean) ?? [];
const WINDOW_CACHE = (process.env.KEEL_ARCH_WINDOW_CACHE ?? 'auto') as 'auto' | 'full' | 'checkpoints';
const CONTEXT = 32768;
const GOAL = 1.05;
const SEED = 0x61726368;

const started = performance.now();
const progress = (msg: string) => process.stderr.write(`[${secs(performance.now() - started).padStart(7)}] ${msg}\n`);

interface Figures { newTokens: number; ideal: number; requests: number; promptTokens: number; ms: number }

/** New tokens and the prefix ideal over a harness's measured requests. */
function figures(requests: RequestMeasure[], ms: number): Figures {
  analyse(requests);
  return {
    newTokens: requests.reduce((n, r) => n + r.newTokens, 0),
    ideal: requests.reduce((n, r) => n + Math.max(1, r.prompt.length - r.firstDiff), 0),
    requests: requests.length, promptTokens: requests.reduce((n, r) => n + r.prompt.length, 0), ms,
  };
}

const times = (f?: Figures) => (f ? `${(f.newTokens / Math.max(1, f.ideal)).toFixed(2)}×` : 'n/a');

async function main(): Promise<number> {
  const models = ARCHITECTURE_MODELS.filter((m) => !ONLY || ONLY.includes(m.architecture));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-arch-'));
  const lines: string[] = [`Keel cache reuse by architecture (issue 31): ${TURNS} turns, context ${fmt(CONTEXT)}, 1 thread${SERVER_ARGS.length ? `; llama-server ${SERVER_ARGS.join(' ')}` : ''}.`];
  const problems: string[] = [];
  const worst: number[] = [];
  try {
    for (const spec of models) {
      const file = path.join(dir, `${spec.architecture}.gguf`);
      writeTestModel(file, spec);
      const arch = architectureOf(await modelInsights(await loadLlama('cpu'), file));
      const model = await loadModel({ modelPath: file, threads: 1, contextSize: CONTEXT, gpu: false, settings: { windowCache: WINDOW_CACHE } });
      const run: { keel?: Figures; stock?: Figures; server?: Figures } = {};
      const details: string[] = [];
      let plan: Scenario | undefined;
      try {
        const reasoning = Boolean(sessionWrapper(model.model, '').settings.segments?.thought);
        plan = scenario(SEED, TURNS, Math.round(TURNS * 1.6), reasoning);
        progress(`${spec.architecture} (${arch.class}): keel`);
        if (HARNESSES.has('keel')) {
          const engine = openEngine({ kind: 'local', model }) as LlamaEngine;
          const sequence = (engine as unknown as { sequence: LlamaContextSequence }).sequence;
          const render = (date: string) => {
            const wrapper = sessionWrapper(model.model, date);
            const write = nativeReplies(model.model, wrapper, plainFunctions(DEFAULT_PROMPTS_DIR));
            // Where the generation prompt opens the reasoning (Qwen3.5's `<think>\n`), the model closes it even when it has none.
            const opened = generationOpensThought(wrapper);
            return (r: ThoughtReply) => (opened && !r.thought ? `\n${opened.suffix}\n\n${write(r)}` : write(r));
          };
          const k = await runKeel(plan, engine, { render, sequence, label: spec.architecture });
          run.keel = figures(k.requests, k.elapsedMs);
          const restored = k.rows.filter((r) => r.engine?.checkpoint?.restoredAt !== undefined && r.engine.checkpoint.restoredAt !== null).length;
          const full = k.rows.filter((r) => r.engine?.checkpoint?.restoredAt === null).length;
          details.push(`  keel: ${run.keel.requests} requests, ${fmt(run.keel.newTokens)} new of ${fmt(run.keel.promptTokens)} prompt tokens (ideal ${fmt(run.keel.ideal)}), ${secs(k.elapsedMs)}; checkpoints restored ${restored}, full re-reads ${full}; checkpoint memory at most ${fmt(engine.checkpoints.peak.memory)} bytes (${fmt(engine.checkpoints.peak.checkpoint)} a checkpoint)`);
          problems.push(...k.problems.map((p) => `${spec.architecture} keel: ${p}`));
        }
        if (HARNESSES.has('stock')) {
          progress(`${spec.architecture}: stock`);
          const systemPrompt = (root: string) => buildSystemPrompt({ promptsDir: DEFAULT_PROMPTS_DIR, root, mode: 'auto', kind: 'agent' }).text;
          const s = await runStock(plan, model, { systemPrompt, promptsDir: DEFAULT_PROMPTS_DIR });
          // The stock harness forces the script through LlamaChatSession's own function calling, token by
          // token; where that does not follow it (its call grammar writes parts itself), its figures are not the scenario's.
          if (s.problems.length === 0) {
            run.stock = figures(s.requests, s.elapsedMs);
            details.push(`  stock: ${run.stock.requests} requests, ${fmt(run.stock.newTokens)} new (ideal ${fmt(run.stock.ideal)}), ${secs(s.elapsedMs)}`);
          } else {
            details.push(`  stock: n/a, LlamaChatSession did not follow the script with the ${model.model.fileInfo.metadata.general.architecture} model's wrapper (${s.problems[0]})`);
          }
        }
      } finally {
        await model.dispose();
      }
      if (HARNESSES.has('server') && plan) {
        progress(`${spec.architecture}: server`);
        run.server = await serverRun(plan, file, run.keel, problems, spec.architecture, details);
      }
      if (run.keel) worst.push(run.keel.newTokens / Math.max(1, run.keel.ideal));
      details.unshift(`  ${arch.class}; cache: ${model.setup.cacheStrategy ?? 'prefix'}`);
      lines.push(`${spec.architecture} new/ideal: keel ${times(run.keel)} stock ${times(run.stock)} server ${times(run.server)}`, ...details);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const max = Math.max(...worst);
  lines.push('', `architectures worst new/ideal: ${max.toFixed(2)}× (${worst.filter((w) => w <= GOAL).length} of ${worst.length} models ≤ ${GOAL.toFixed(2)}×)`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return checkProblems('bench:architectures', problems);
}

/** The scenario on a real llama-server with its defaults, through Keel's server engine; the ideal is the in-process one. */
async function serverRun(plan: Scenario, file: string, local: Figures | undefined, problems: string[], name: string, lines: string[]): Promise<Figures | undefined> {
  const server = await startLlamaServer({ model: file, contextSize: CONTEXT, slots: 1, threads: 1, alias: name, extraArgs: SERVER_ARGS });
  try {
    const engine = new ServerEngine(await connectServer({ url: server.url, model: name }));
    const k = await runKeel(plan, engine, {
      render: () => (r) => scriptReply(r.text, r.call ? [{ name: r.call.name, arguments: r.call.args }] : []), label: `${name} server`,
    });
    problems.push(...k.problems.map((p) => `${name} server: ${p}`));
    const reported = k.rows.filter((r) => r.engine?.server?.cachedTokens !== null);
    const newTokens = reported.reduce((n, r) => n + r.promptTokens - (r.engine?.server?.cachedTokens ?? 0), 0);
    const promptTokens = k.rows.reduce((n, r) => n + r.promptTokens, 0);
    lines.push(`  server: ${k.rows.length} requests (${k.rows.length - reported.length} without a cache report), ${fmt(newTokens)} new of ${fmt(promptTokens)} prompt tokens by its own report, ${secs(k.elapsedMs)} (replies without reasoning: the server engine forces them as the template renders a finished reply)`);
    return local && { newTokens, ideal: local.ideal, requests: k.rows.length, promptTokens, ms: k.elapsedMs };
  } finally {
    await server.stop();
  }
}

main().then((code) => process.exit(code), (e: unknown) => {
  process.stderr.write(`${(e as Error)?.stack ?? String(e)}\n`);
  process.exit(1);
});
