/**
 * bench:resume's child, one phase per process (so a reopen is a new process, as after a quit):
 *
 *   grow    a new session in a new data folder, grown to about `target` tokens over `turns` turns,
 *           through the app's AgentPool (the policy under test: the state is saved once the session
 *           has been idle loop.json `idle_save_ms`, and at quit), turns sent as quickly as the script
 *           allows; the pool is closed at the end, as at quit
 *   before  the same session in another data folder under the old policy: a full save after every
 *           send, which the send's turn waits for
 *   reopen  the session of a grown data folder reopened through the pool (restoring its saved state,
 *           unless --cold, where the state folder is removed first), then one message sent; with
 *           --waits also: a message sent while an idle save is due, and one sent while it is written
 *
 *   node --import tsx bench/resume/child.ts '<json Args>'
 *
 * Progress goes to stderr; the figures are the last line of stdout, one JSON object.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { KeelEvent } from '../../main/contract.js';
import { AgentPool } from '../../main/app/agentPool.js';
import { sessionStateFile as stateFile } from '../../main/keelHome.js';
import { ModelCatalog } from '../../main/app/catalog.js';
import { loopConfig } from '../../main/core/config.js';
import type { AgentLoop } from '../../main/core/turn/loop.js';
import { Session } from '../../main/core/session/session.js';
import type { RequestRow } from '../../main/core/state/types.js';
import { SqliteStore } from '../../main/db/store.js';
import { readMeta } from '../../main/llm/stateFiles.js';
import { openAgent, openEngine } from '../../main/openEngine.js';
import { appDeps } from '../appDeps.js';
import { Rng } from '../prng.js';

export interface Args {
  phase: 'grow' | 'before' | 'reopen';
  /** The data folder (keel.db, settings.json, state/) and the session's workspace beside it. */
  data: string;
  model: string;
  contextSize: number;
  /** grow, before: the tokens the session should hold after its last turn, and its turns. */
  target?: number;
  turns?: number;
  seed?: number;
  /** reopen: the session, whether to drop its state first, whether to measure the waits too. */
  session?: number;
  cold?: boolean;
  waits?: boolean;
}

/** One save: its state's size, how long it took, and when it began (ms since the phase started). */
/** A state save: its size, how long the engine was held (copyMs: the part a message waits for) and the whole save took. */
export interface Save { bytes: number; copyMs: number; ms: number; tokens: number; at: number }

/** One request as Keel recorded it. */
export type Request = Pick<RequestRow, 'promptTokens' | 'reusedTokens' | 'newTokens' | 'prefillMs' | 'cause'>;

export interface GrowResult {
  session: number;
  turns: number;
  tokens: number;
  saves: Save[];
  /** Per send: ms from the send being asked to its work starting (the wait for a state write). */
  waits: number[];
  requests: Request[];
  elapsedMs: number;
}

export interface ReopenResult {
  /** The tokens in the cache once the session was open: those its saved state restored (0 when cold). */
  restoredTokens: number;
  /** ms to open the session on the loaded model, its saved state restored (when not cold). */
  openMs: number;
  first: Request;
  firstWaitMs: number;
  /** The CPU time this process spent on the first send, all threads (a figure a busy machine does not inflate). */
  firstCpuMs: number;
  /** --waits: a send while the idle save is due (timer running) and while it is being written. */
  dueWaitMs?: number;
  writingWaitMs?: number;
  writingSave?: Save;
}

const NOW = new Date('2026-12-01T10:00:00');
/** The words messages are made of (each one token on the generated model's vocabulary, mostly). */
const WORDS = [
  'the', 'file', 'code', 'test', 'error', 'line', 'function', 'value', 'return', 'import', 'export', 'const', 'type',
  'check', 'fix', 'add', 'change', 'update', 'read', 'write', 'search', 'build', 'project', 'folder', 'output', 'input',
  'list', 'data', 'string', 'number', 'class', 'interface', 'async', 'await', 'null', 'true', 'false', 'index', 'main',
  'src', 'package', 'json', 'result', 'message', 'name', 'path', 'content', 'key', 'map', 'filter', 'length', 'then',
];
export const REOPEN_MESSAGE = 'Now run the tests again and fix the first error in the output.';
const reply = (n: number) => `Done with step ${n}: the code now reads the file and checks the result.`;

const log = (msg: string) => process.stderr.write(`  [${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

async function main(): Promise<void> {
  const a = JSON.parse(process.argv[2] ?? '{}') as Args;
  const out = a.phase === 'grow' ? await grow(a, 'idle') : a.phase === 'before' ? await grow(a, 'every-send') : await reopen(a);
  process.stdout.write(JSON.stringify(out) + '\n');
}

/** The app's pieces on a data folder: the store, the catalog with the model chosen, the pool. */
async function app(a: Args, replies: string[]) {
  const store = new SqliteStore(path.join(a.data, 'keel.db'));
  const errors: string[] = [];
  const emit = (e: KeelEvent) => {
    if (e.type === 'error') errors.push(e.message);
  };
  const catalog = new ModelCatalog({ dataFolder: a.data, emit, threads: 1, contextSize: a.contextSize });
  await catalog.choose(a.model);
  // The sessions as the app builds them, on the data folder (its settings, checkpoints, guarded folder).
  const { deps, missing } = appDeps({ store, dataFolder: a.data, now: () => NOW });
  const pool = new AgentPool({ deps, catalog, dataFolder: a.data, emit, scriptFor: () => ({ next: () => replies.shift() }) });
  return {
    store, deps, pool, errors,
    model: () => catalog.model(a.model),
    async close() {
      await pool.dispose();
      await catalog.dispose();
      store.close();
      if (errors.length > 0) throw new Error(`the app reported: ${errors.join('; ')}`);
      if (missing.length > 0) throw new Error(missing.join('; '));
    },
  };
}

/** Records each save the pool makes of this agent (its instance's saveState, wrapped). */
function watchSaves(agent: AgentLoop, file: string, began: number, onBegin?: () => void): Save[] {
  const saves: Save[] = [];
  const save = agent.saveState.bind(agent);
  agent.saveState = async (o = {}) => {
    const at = performance.now();
    const tokens = agent.engine.cachedTokens();
    let copyMs = NaN;
    onBegin?.();
    await save({
      copied: () => {
        copyMs = performance.now() - at;
        o.copied?.();
      },
    });
    const meta = readMeta(file);
    if (!meta.ok) throw new Error(`no state metadata after a save: ${meta.reason ?? 'missing'}`);
    saves.push({ bytes: meta.meta.bytes, copyMs, ms: performance.now() - at, tokens, at: at - began });
  };
  return saves;
}

const requestOf = (r: RequestRow): Request => ({
  promptTokens: r.promptTokens, reusedTokens: r.reusedTokens, newTokens: r.newTokens, prefillMs: r.prefillMs, cause: r.cause,
});

/**
 * The next message: words enough that the turn (message, template framing, reply) adds the tokens
 * left to reach `target`, spread over the turns left.
 */
async function nextMessage(agent: AgentLoop, rng: Rng, target: number, turnsLeft: number, replyText: string): Promise<string> {
  const have = await agent.promptTokens();
  const want = Math.max(8, Math.round((target - have) / turnsLeft) - (await agent.engine.countTokens(replyText)) - 12);
  const words: string[] = [];
  while (words.length < want) words.push(rng.pick(WORDS));
  let text = words.join(' ');
  while ((await agent.engine.countTokens(text)) > want && words.length > 1) text = (words.pop(), words.join(' '));
  return text;
}

async function grow(a: Args, policy: 'idle' | 'every-send'): Promise<GrowResult> {
  const began = performance.now();
  const replies: string[] = [];
  const root = path.join(a.data, '..', `${path.basename(a.data)}-workspace`);
  fs.mkdirSync(root, { recursive: true });
  fs.writeFileSync(path.join(root, 'README.md'), 'A project.\n');
  const keel = await app(a, replies);
  const session = Session.create(keel.deps, { root, kind: 'agent', mode: 'auto', title: 'resume bench', model: path.resolve(a.model) });
  const file = stateFile(a.data, session.id);
  // The old policy had no pool saving at idle: a loop that saves after every send, as the service did.
  const agent = policy === 'idle'
    ? await keel.pool.agent(session.id)
    : openAgent({ session, store: keel.store, engine: openEngine({ kind: 'local', model: await keel.model() }), stateFile: file, script: { next: () => replies.shift() } });
  const saves = watchSaves(agent, file, began);
  const rng = new Rng(a.seed ?? 1);
  const turns = a.turns ?? 40;
  const waits: number[] = [];
  // Each turn's message is made inside its work, so making it never leaves the session idle.
  const turn = async (loop: AgentLoop, n: number) => {
    const text = await nextMessage(loop, rng, a.target ?? 8192, turns - n + 1, reply(n));
    replies.push(reply(n));
    await loop.send(text);
  };
  for (let n = 1; n <= turns; n++) {
    if (policy === 'idle') {
      const asked = performance.now();
      await keel.pool.run(session.id, async (loop) => {
        waits.push(performance.now() - asked);
        await turn(loop, n);
      });
    } else {
      // The old policy: the whole state saved after every send; the turn ends only once it is written.
      await turn(agent, n);
      await agent.saveState();
    }
    if (n % 5 === 0) log(`${a.phase}: turn ${n}/${turns}, ${agent.engine.cachedTokens()} tokens cached, ${saves.length} saves`);
  }
  const tokens = agent.engine.cachedTokens();
  const requests = agent.requests().map(requestOf);
  if (policy === 'every-send') await agent.dispose();
  await keel.close();
  return { session: session.id, turns, tokens, saves, waits, requests, elapsedMs: performance.now() - began };
}

async function reopen(a: Args): Promise<ReopenResult> {
  const began = performance.now();
  const id = a.session!;
  if (a.cold) fs.rmSync(path.join(a.data, 'state'), { recursive: true, force: true });
  const replies: string[] = [];
  const keel = await app(a, replies);
  let begun: (() => void) | undefined;
  const opened = performance.now();
  const agent = await keel.pool.agent(id);
  const openMs = performance.now() - opened;
  const restoredTokens = agent.engine.cachedTokens();
  const saves = watchSaves(agent, stateFile(a.data, id), began, () => begun?.());
  const send = async (text: string, n: number) => {
    replies.push(reply(n));
    const asked = performance.now();
    let wait = 0;
    await keel.pool.run(id, async (loop) => {
      wait = performance.now() - asked;
      await loop.send(text);
    });
    return wait;
  };
  const cpu = process.cpuUsage();
  const firstWaitMs = await send(REOPEN_MESSAGE, 100);
  const used = process.cpuUsage(cpu);
  const firstCpuMs = (used.user + used.system) / 1000;
  const first = requestOf(agent.requests().at(-1)!);
  log(`reopen${a.cold ? ' (cold)' : ''}: prefill ${first.prefillMs.toFixed(0)} ms for ${first.newTokens} new of ${first.promptTokens} tokens`);
  const result: ReopenResult = { restoredTokens, openMs, first, firstWaitMs, firstCpuMs };
  if (a.waits) {
    // A message sent halfway through the idle delay: the save is due, not begun; the send cancels it.
    await sleep(loopConfig.idleSaveMs / 2);
    result.dueWaitMs = await send('Good, and the next one.', 101);
    // A message sent the moment the idle save begins: the pool finishes the write before the sequence changes.
    // (The pool's idle timer does not keep a process alive: this wait's own timer does, and gives up if no save comes.)
    await new Promise<void>((resolve, reject) => {
      const guard = setTimeout(() => reject(new Error('the idle save never began')), loopConfig.idleSaveMs + 60_000);
      begun = () => {
        clearTimeout(guard);
        resolve();
      };
    });
    result.writingWaitMs = await send('And the last one.', 102);
    result.writingSave = saves.at(-1);
  }
  await keel.close();
  return result;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`child failed: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  },
);
