/**
 * Benchmark of subagents (issue 33): a scripted parent session on the generated model hands three
 * tasks to subagents — two in one reply (they run at once), then one more — and answers. Each
 * sequence (the parent's and each child's) is watched by the probe bench:reuse uses (reuse/measure.ts),
 * which sees every evaluation node-llama-cpp is asked for; nothing here takes Keel's own figures.
 *
 * - The parent: each request after its first should evaluate only what is new to it (the person's
 *   message, the task results): `parent new/ideal` is its evaluated tokens over the ideal (the
 *   tokens its prompt adds to what its sequence held), goal 1.00×. The children run on sequences of
 *   their own, so nothing of the parent's cache is lost to them.
 * - The children: they start with the same tokens (the parent's system prompt, their own tool list);
 *   the first evaluates that prefix, the others load its saved state. `children shared-prefix tokens
 *   re-read` counts the prefix tokens any later child evaluated again, goal 0.
 *
 *   npm run bench:subagents
 *
 * The sessions are built as the app builds them (bench/appDeps.ts) and the children hosted as the app
 * and CLI host them (main/subagentHost.ts). It exits 1 when a check fails (a task that did not
 * answer as scripted, a scripted reply left unused, the two children not running at once).
 *
 * Printed last, for the goals: `parent new/ideal: X.XX×` and `children shared-prefix tokens re-read: N`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LlamaContextSequence } from 'node-llama-cpp';
import { subagentsConfig } from '../main/core/config.js';
import { Session } from '../main/core/session/session.js';
import type { LoopEvent } from '../main/core/turn/loop.js';
import { SqliteStore } from '../main/db/store.js';
import type { LlamaEngine } from '../main/llm/engine.js';
import { loadModel } from '../main/llm/model.js';
import { writeTestModel } from '../main/llm/testModel/makeTestModel.js';
import { formatCall } from '../main/llm/toolCalls.js';
import { openAgent, openEngine } from '../main/openEngine.js';
import { hostSubagents } from '../main/subagentHost.js';
import { stopSandbox } from '../main/sandbox/runner.js';
import { appDeps } from './appDeps.js';
import { checkProblems } from './checks.js';
import { analyse, commonPrefix, SequenceProbe, type RequestMeasure } from './reuse/measure.js';

const DATE = new Date('2026-12-06T10:00:00');
const sequenceOf = (engine: unknown) => (engine as { sequence: LlamaContextSequence }).sequence;

/** The workspace the children read: a few files, so their calls have something to find. */
const FILES: Record<string, string> = {
  'src/config.ts': 'export const config = { port: 8080, retries: 3 };\n',
  'src/server.ts': "import { config } from './config';\nexport function start() {\n  return config.port;\n}\n",
  'README.md': '# Demo\n\nThe server starts on the configured port.\n',
};

/** Each task: the parent's call, the child's replies (calls by name and arguments, then its answer). */
const TASKS = [
  { description: 'Find the port', prompt: 'Look in src: which port does the server use?', calls: [['read', { path: 'src/config.ts' }]], answer: 'Port 8080 (src/config.ts).' },
  { description: 'Find the start', prompt: 'Where is the server started?', calls: [['grep', { pattern: 'start' }]], answer: 'start() in src/server.ts.' },
  { description: 'Read the README', prompt: 'Say what the README holds.', calls: [['read', { path: 'README.md' }]], answer: 'It says the server starts on the configured port.' },
] as const;

interface Child {
  id: number;
  probe: SequenceProbe;
  running: [number, number];
  first?: RequestMeasure;
}

async function main(): Promise<number> {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-bench-subagents-')));
  const root = path.join(dir, 'ws');
  for (const [rel, text] of Object.entries(FILES)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  const modelPath = path.join(dir, 'tiny.gguf');
  writeTestModel(modelPath, { contextLength: 16384 });
  const model = await loadModel({ modelPath, threads: Math.max(1, Math.min(4, os.availableParallelism())), contextSize: 16384 });
  const store = new SqliteStore(path.join(dir, 'keel.db'));
  const problems: string[] = [];
  try {
    const { deps, missing } = appDeps({ store, dataFolder: path.join(dir, 'data'), now: () => DATE, approve: async () => 'allow' });
    const parentSession = Session.create(deps, { root, kind: 'agent', mode: 'auto', model: model.path });
    const parentReplies: string[] = [];
    const requests: RequestMeasure[] = [];
    const events: LoopEvent[] = [];
    const agent = openAgent({
      session: parentSession, store, engine: openEngine({ kind: 'local', model }), script: { next: () => parentReplies.shift() },
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'request') {
          requests.push(probe.end());
          probe.begin(requests.length + 1);
        }
      },
    });
    // The parent's sequence, probed request by request.
    const probe = new SequenceProbe(sequenceOf(agent.engine));
    const syntax = (agent.engine as LlamaEngine).syntax(parentSession.promptDate);
    const between = '\n'; // The template's betweenCalls (ChatML with tools): what a model writes between two calls.

    // The children, in the order they are created: their scripted replies and their sequences' probes.
    const children = new Map<number, Child>();
    const childReplies = new Map<number, string[]>();
    let created = 0;
    hostSubagents(deps, {
      engine: async (child) => {
        const engine = openEngine({ kind: 'local', model });
        const task = TASKS[created++];
        childReplies.set(child.id, [...task.calls.map(([name, args]) => formatCall(syntax, name, args)), task.answer]);
        const probe = new SequenceProbe(sequenceOf(engine));
        probe.begin(1);
        children.set(child.id, { id: child.id, probe, running: [performance.now(), Infinity] });
        return engine;
      },
      script: (id) => ({ next: () => childReplies.get(id)?.shift() }),
      onChild: (_parent, id, change) => {
        const child = children.get(id);
        if (!child) return;
        if ('event' in change && change.event.type === 'request' && !child.first) child.first = child.probe.end();
        if ('state' in change && (change.state === 'answered' || change.state === 'failed')) child.running[1] = performance.now();
      },
    });

    const began = performance.now();
    const task = (t: (typeof TASKS)[number]) => formatCall(syntax, 'task', { description: t.description, prompt: t.prompt });
    parentReplies.push(`${task(TASKS[0])}${between}${task(TASKS[1])}`, task(TASKS[2]), 'The server listens on port 8080, started by start().');
    probe.begin(1);
    const answer = await agent.send('Find out how the server starts, with subagents.');
    const elapsedMs = performance.now() - began;

    // Checks: every task ran as scripted, nothing was left unused, the first two ran at once.
    const results = events.flatMap((e) => (e.type === 'tool' && e.name === 'task' ? [e.result.text.replace(/^\[#\w+\]\n/, '')] : []));
    if (JSON.stringify(results) !== JSON.stringify(TASKS.map((t) => t.answer))) problems.push(`the task results were ${JSON.stringify(results)}`);
    if (answer !== 'The server listens on port 8080, started by start().') problems.push(`the parent answered ${JSON.stringify(answer.slice(0, 80))}`);
    if (parentReplies.length > 0) problems.push(`${parentReplies.length} scripted parent replies left unused`);
    for (const [id, left] of childReplies) if (left.length > 0) problems.push(`child ${id}: ${left.length} scripted replies left unused`);
    const list = [...children.values()];
    if (list.length !== TASKS.length) problems.push(`${list.length} children ran, not ${TASKS.length}`);
    if (list.length >= 2 && !(list[1].running[0] < list[0].running[1])) problems.push('the two children of one reply did not run at once');
    if (list.some((c) => !c.first)) problems.push('a child made no request');
    problems.push(...missing);

    // The parent: evaluated against the ideal, after its first request.
    analyse(requests);
    const later = requests.slice(1);
    const evaluated = later.reduce((n, r) => n + r.newTokens, 0);
    const ideal = later.reduce((n, r) => n + r.ideal, 0);
    const lost = later.reduce((n, r) => n + r.lost, 0);

    // The children: the prefix they share, and what of it any after the first evaluated again.
    const firsts = list.flatMap((c) => (c.first ? [c.first] : []));
    const shared = firsts.length >= 2 ? Math.min(...firsts.slice(1).map((f) => commonPrefix(firsts[0].prompt, f.prompt))) : 0;
    const prefixRead = (m: RequestMeasure) => m.evaluations.reduce((n, e) => n + Math.max(0, Math.min(e.start + e.tokens, shared) - e.start), 0);
    const reread = firsts.slice(1).reduce((n, f) => n + prefixRead(f), 0);
    if (firsts[0] && prefixRead(firsts[0]) !== shared) problems.push(`the first child evaluated ${prefixRead(firsts[0])} of the ${shared} shared tokens, not all`);

    console.log(`bench:subagents — generated model, ${TASKS.length} tasks (2 in one reply, max_parallel ${subagentsConfig.maxParallel}), ${(elapsedMs / 1000).toFixed(1)} s`);
    console.log('parent requests (prompt / cached before / evaluated / ideal / lost):');
    for (const r of requests) console.log(`  ${r.turn}: ${r.prompt.length} / ${r.cachedBefore} / ${r.newTokens} / ${r.ideal} / ${r.lost}`);
    console.log('children (first request: prompt / evaluated / of the shared prefix / ran ms):');
    for (const c of list) {
      const f = c.first;
      console.log(`  session ${c.id}: ${f?.prompt.length ?? 0} / ${f?.newTokens ?? 0} / ${f ? prefixRead(f) : 0} / ${Math.round(c.running[1] - c.running[0])}`);
    }
    console.log(`children's shared prefix: ${shared} tokens`);
    console.log(`parent tokens lost to the children: ${lost}`);
    console.log(`parent new/ideal: ${ideal > 0 ? (evaluated / ideal).toFixed(2) : 'n/a'}×`);
    console.log(`children shared-prefix tokens re-read: ${reread}`);
    return checkProblems('bench:subagents', problems);
  } finally {
    store.close();
    await model.dispose();
    await stopSandbox(); // its proxies would keep the process alive
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
