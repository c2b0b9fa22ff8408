/**
 * Keel on the scenario: the real agent loop on a session built as the app builds it (appDeps: the
 * real store, tools and OS sandbox), driven through the loop's own history actions (undo, rewindTo,
 * regenerate), on the in-process engine or on the server engine. In process, a probe on the
 * sequence measures every request (prompt, re-reads included); on a server, Keel's request records
 * (the server's own cached-token report) are the figures.
 */
import path from 'node:path';
import type { LlamaContextSequence } from 'node-llama-cpp';
import type { Engine } from '../../main/core/engine/types.js';
import type { LoopEvent } from '../../main/core/turn/loop.js';
import { Session } from '../../main/core/session/session.js';
import type { RequestRow } from '../../main/core/state/types.js';
import { SqliteStore } from '../../main/db/store.js';
import { openAgent } from '../../main/openEngine.js';
import { requireSandbox } from '../../main/app/sessionDeps.js';
import { appDeps } from '../appDeps.js';
import { SequenceProbe, type RequestMeasure } from '../reuse/measure.js';
import type { Turn } from '../reuse/script.js';
import { makeWorkspace } from '../reuse/tools.js';
import type { Scenario, ThoughtReply } from './scenario.js';

export interface KeelRun {
  /** Per request, in process: measured on the sequence. */
  requests: RequestMeasure[];
  /** Keel's own records of its requests. */
  rows: RequestRow[];
  problems: string[];
  elapsedMs: number;
}

const NOW = new Date('2026-12-05T10:00:00');

/**
 * `render` writes a scripted reply in the engine's own text (the model's native syntax in process,
 * the server engine's JSON form on a server). `sequence`, in process, is measured.
 */
export async function runKeel(
  scenario: Scenario, engine: Engine, o: { render(date: string): (r: ThoughtReply) => string; sequence?: LlamaContextSequence; label: string },
): Promise<KeelRun> {
  const began = performance.now();
  const ws = makeWorkspace(scenario.files, 'keel_');
  const dir = path.dirname(ws.root);
  const store = new SqliteStore(path.join(dir, 'keel.db'));
  const { deps, missing } = appDeps({ store, dataFolder: path.join(dir, 'data'), now: () => NOW, approve: async () => 'allow' });
  const problems: string[] = [];
  const requests: RequestMeasure[] = [];
  const probe = o.sequence && new SequenceProbe(o.sequence);
  try {
    await requireSandbox(deps, `bench:architectures (${o.label})`);
    const session = Session.create(deps, { root: ws.root, kind: 'agent', mode: 'auto', model: engine.id });
    const replies: string[] = [];
    const events: LoopEvent[] = [];
    let turnNo = 0;
    const agent = openAgent({
      session, store, engine, maxReplyTokens: 512, script: { next: () => replies.shift() },
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'request' && probe) {
          requests.push(probe.end());
          probe.begin(turnNo);
        }
      },
    });
    const render = o.render(session.promptDate);
    const play = async (turn: Turn, act: () => Promise<string>) => {
      turnNo++;
      probe?.begin(turnNo);
      replies.push(...turn.replies.map(render));
      const from = events.length;
      const answer = await act();
      const ran = events.slice(from).filter((e) => e.type === 'tool').map((e) => e.type === 'tool' && e.name);
      const expected = turn.replies.filter((r) => r.call).map((r) => r.call!.name);
      if (ran.join() !== expected.join()) problems.push(`step ${turnNo}: ran ${ran.join(', ') || 'no call'}, the script has ${expected.join(', ') || 'none'}`);
      if (answer !== turn.replies.at(-1)!.text) problems.push(`step ${turnNo}: answered ${JSON.stringify(answer.slice(0, 80))}, the script ${JSON.stringify(turn.replies.at(-1)!.text.slice(0, 80))}`);
      if (replies.length > 0) problems.push(`step ${turnNo}: ${replies.length} scripted replies left unused`);
      replies.length = 0;
    };
    try {
      for (const step of scenario.steps) {
        if (step.kind === 'send') await play(step.turn, () => agent.send(step.turn.words));
        else if (step.kind === 'regenerate') await play(step.turn, () => agent.regenerate());
        else if (step.kind === 'undo') agent.undo();
        else agent.rewindTo(agent.session.turns()[step.index]!.seq);
      }
      for (const m of missing) problems.push(m);
      return { requests, rows: agent.requests(), problems, elapsedMs: performance.now() - began };
    } finally {
      await agent.dispose();
    }
  } finally {
    store.close();
    ws.remove();
  }
}
