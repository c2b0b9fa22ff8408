/**
 * Harness 1, Keel: the real agent loop, opened as everything opens it (main/openEngine.ts), on a session built
 * as the app builds it (main/app/sessionDeps.ts: a real SQLite store, the real tools, OS sandbox, checkpoints and
 * hooks, in a temporary workspace), with the scripted replies as its Script. The
 * requests Keel records (with their causes) are read back, and the probe measures the same
 * figures as for the other harnesses.
 */
import path from 'node:path';
import type { LlamaContextSequence } from 'node-llama-cpp';
import { DEFAULT_PROMPTS_DIR } from '../../main/core/prompts/buildSystemPrompt.js';
import { Session } from '../../main/core/session/session.js';
import type { RequestRow } from '../../main/core/state/types.js';
import { SqliteStore } from '../../main/db/store.js';
import { requireSandbox } from '../../main/app/sessionDeps.js';
import { appDeps } from '../appDeps.js';
import type { LoopEvent } from '../../main/core/turn/loop.js';
import { openAgent, openEngine } from '../../main/openEngine.js';
import type { LoadedModel } from '../../main/llm/model.js';
import { sessionWrapper } from '../../main/llm/wrapper.js';
import { SequenceProbe, type RequestMeasure } from './measure.js';
import { RunProfile } from './profile.js';
import { makeWorkspace, plainFunctions } from './tools.js';
import { nativeReplies } from '../../main/llm/testModel/nativeReplies.js';
import type { Script } from './script.js';
import { priceActions, type PricedRun } from './prices.js';

export interface HarnessRun {
  name: string;
  requests: RequestMeasure[];
  /** What went otherwise than the script says (a call not run, another answer). */
  problems: string[];
  elapsedMs: number;
  /** Keel only: the rows it recorded itself. */
  rows?: RequestRow[];
  /** Keel only: each priced action after the session, predicted and measured (prices.ts). */
  prices?: PricedRun[];
  /** Where the system prompt ends in the first request's tokens (for classifying breaks). */
  systemEnd?: number;
  notes: string[];
}

const START = new Date('2026-11-30T23:20:00');
const NEXT_DAY = new Date('2026-12-01T00:40:00');

export async function runKeel(
  script: Script, model: LoadedModel,
  o: {
    label?: string; compactAt?: number; progress?: (msg: string) => void; /** Time the run's parts (notes). */ profile?: boolean;
    /** After the session, price and take the actions of prices.ts. */ prices?: boolean;
  } = {},
): Promise<HarnessRun> {
  const began = performance.now();
  const ws = makeWorkspace(script.files, 'keel_');
  const root = ws.root;
  const dir = path.dirname(root);
  let now = START;
  const store = new SqliteStore(path.join(dir, 'keel.db'));
  // The session as the app builds it: commands in the OS sandbox (auto mode lets them run at once); what the
  // gate still asks about (a command too complex to judge) the person allows, as the other harnesses run it.
  const prof = o.profile ? new RunProfile() : undefined;
  const built = appDeps({ store, dataFolder: path.join(dir, 'data'), now: () => now, approve: async () => 'allow', tools: prof?.tools() });
  const { missing } = built;
  const deps = prof ? prof.wrap(built.deps) : built.deps;
  try {
    await requireSandbox(deps, 'bench:reuse (Keel)');
  } catch (err) {
    store.close();
    ws.remove();
    throw err;
  }
  const session = Session.create(deps, { root, kind: 'agent', mode: 'auto', model: model.path });
  const replies: string[] = [];
  const requests: RequestMeasure[] = [];
  const events: LoopEvent[] = [];
  const ref: { probe?: SequenceProbe } = {};
  let turnNo = 0;
  const agent = openAgent({
    session, store, engine: openEngine({ kind: 'local', model }), maxReplyTokens: 512, compactAt: o.compactAt,
    script: { next: () => replies.shift() },
    onEvent: (e) => {
      const t0 = performance.now();
      events.push(e);
      if (e.type === 'request' && ref.probe) {
        const m = ref.probe.end();
        m.cause = e.request.cause;
        requests.push(m);
        ref.probe.begin(turnNo);
      }
      prof?.add('the bench\'s own probe and events', performance.now() - t0);
    },
  });
  const probe = new SequenceProbe((agent.engine as unknown as { sequence: LlamaContextSequence }).sequence);
  ref.probe = probe;
  const problems: string[] = [];
  try {
    const render = nativeReplies(model.model, sessionWrapper(model.model, session.promptDate), plainFunctions(DEFAULT_PROMPTS_DIR));
    for (const [i, turn] of script.turns.entries()) {
      turnNo = i + 1;
      probe.begin(turnNo);
      if (turn.newDay) now = NEXT_DAY;
      replies.push(...turn.replies.map(render));
      const from = events.length;
      const answer = await agent.send(turn.words);
      const ran = events.slice(from).filter((e) => e.type === 'tool');
      const expected = turn.replies.filter((r) => r.call).map((r) => r.call!);
      if (ran.length !== expected.length || ran.some((e, k) => e.type === 'tool' && (e.name !== expected[k].name || JSON.stringify(e.args) !== JSON.stringify(expected[k].args)))) {
        problems.push(`turn ${turnNo}: ran ${ran.map((e) => e.type === 'tool' && e.name).join(', ') || 'no call'}, the script has ${expected.map((c) => c.name).join(', ') || 'none'}`);
      }
      if (answer !== turn.replies[turn.replies.length - 1].text) problems.push(`turn ${turnNo}: answered ${JSON.stringify(answer.slice(0, 80))}`);
      for (const e of events.slice(from)) {
        if (e.type === 'tool' && /^\[#\w+\]\nError/.test(e.result.text)) problems.push(`turn ${turnNo}: ${e.name} failed: ${e.result.text.split('\n')[1]}`);
        if (e.type === 'compacted') problems.push(`turn ${turnNo}: Keel compacted the session`);
      }
      if (replies.length > 0) {
        problems.push(`turn ${turnNo}: ${replies.length} scripted replies left unused`);
        replies.length = 0;
      }
      if (turnNo % 10 === 0) o.progress?.(`${o.label ?? 'keel'}: turn ${turnNo}/${script.turns.length}, prompt ${requests[requests.length - 1]?.prompt.length ?? 0} tokens`);
    }
    for (const m of missing) problems.push(m);
    const rows = agent.requests();
    const first = requests[0];
    const systemEnd = first ? systemPromptEnd(model, first.prompt, session.systemPrompt) : undefined;
    const elapsedMs = performance.now() - began;
    const notes = prof ? prof.lines(elapsedMs, rows, requests.reduce((n, r) => n + r.generationMs, 0)) : [];
    // Outside the comparison: the actions after the session, each priced before it is taken.
    ref.probe = undefined;
    const prices = o.prices ? await priceActions(agent, model, replies, render, problems) : undefined;
    return { name: 'Keel', requests, problems, elapsedMs, rows, systemEnd, notes, ...(prices && { prices }) };
  } finally {
    await agent.dispose();
    store.close();
    ws.remove();
  }
}

/** The token index where the system prompt's text ends (first token whose text reaches past it). */
export function systemPromptEnd(model: LoadedModel, tokens: readonly number[], system: string): number | undefined {
  const tail = system.slice(-40);
  let text = '';
  for (let i = 0; i < tokens.length; i++) {
    text += model.model.detokenize([tokens[i]] as never, true);
    if (text.includes(tail)) return i + 1;
  }
  return undefined;
}
