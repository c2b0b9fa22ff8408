/**
 * The state kill loop's child: loads the generated model argv[3] (one thread), reopens the newest
 * session of the store in argv[2] (or creates one) as an agent loop opened by main/openEngine.ts,
 * restores its saved KV state, sends one message and checks the answer (the check of what the last
 * kill left), then sends scripted messages and saves the state, again and again, until it is killed.
 * With --check it stops after the check.
 *
 *   node --import tsx bench/crash/stateChild.ts <dir> <model.gguf> [--check]
 *
 * <dir> holds keel.db, workspace/ and state/ (the app's layout: main/keelHome.ts sessionStateFile).
 * It tells the parent, one JSON line per event on stdout (written synchronously, one write each):
 *   {"t":"opening"}                                            before anything is opened
 *   {"t":"restored","s":ID,"restored":B,"reason":R,"tokens":N,"ms":M}
 *       the restore returned: restored or not, the reason it gave for not, the tokens now cached
 *   {"t":"answered","s":ID,"answer":A,"expected":E,"reused":N,"prompt":N,"cause":C}
 *       the first message's answer, with its request's reuse and cause
 *   {"t":"ready"}                                              the check is done (kills land from here)
 *   {"t":"session","s":ID}                                     the session was full: a new one goes on
 *   {"t":"save-begin","s":ID,"tokens":N}                       a save of N cached tokens is about to start
 *   {"t":"save-end","s":ID,"tokens":N,"ms":M}                  that save returned (committed)
 */
import fs from 'node:fs';
import path from 'node:path';
import { sessionStateFile as stateFile } from '../../main/keelHome.js';
import type { AgentLoop } from '../../main/core/turn/loop.js';
import { Session, type SessionDeps } from '../../main/core/session/session.js';
import { ToolRegistry } from '../../main/core/tools/registry.js';
import { SqliteStore } from '../../main/db/store.js';
import { loadModel, type LoadedModel } from '../../main/llm/model.js';
import { openAgent, openEngine } from '../../main/openEngine.js';
import { appDeps } from '../appDeps.js';
import { STATE_CONTEXT, STATE_SESSION_CAP, STATE_TOOLS, stateMessage, stateReply } from './stateScript.js';

const tell = (event: Record<string, unknown>): void => {
  fs.writeSync(1, JSON.stringify(event) + '\n');
};

/** One agent loop on one session, with the scripted replies it will give and the notices it raised. */
interface Open { agent: AgentLoop; replies: string[]; notices: string[] }

function open(deps: SessionDeps, session: Session, model: LoadedModel, dir: string): Open {
  const replies: string[] = [];
  const notices: string[] = [];
  const agent = openAgent({
    session, store: deps.store, engine: openEngine({ kind: 'local', model }), maxReplyTokens: 64,
    script: { next: () => replies.shift() }, stateFile: stateFile(dir, session.id),
    onEvent: (e) => {
      if (e.type === 'notice') notices.push(e.text);
    },
  });
  return { agent, replies, notices };
}

/** Sends the session's next message with its scripted reply; the answer and its request. */
async function sendNext(o: Open, missing: string[]) {
  const n = o.agent.session.turns().length + 1;
  o.replies.push(stateReply(n));
  const answer = await o.agent.send(stateMessage(n));
  if (missing.length > 0) throw new Error(missing.join('; '));
  return { answer, expected: stateReply(n), request: o.agent.requests().at(-1)! };
}

async function main(): Promise<void> {
  const [dir, modelPath, flag] = process.argv.slice(2);
  if (!dir || !modelPath) throw new Error('usage: stateChild.ts <dir> <model.gguf> [--check]');
  tell({ t: 'opening' });
  const store = new SqliteStore(path.join(dir, 'keel.db'));
  const root = path.join(dir, 'workspace');
  fs.mkdirSync(root, { recursive: true });
  const now = new Date('2026-12-01T10:00:00');
  // The session as the app builds it, on <dir> as its data folder, with the script's tools only.
  const { deps, missing } = appDeps({ store, dataFolder: dir, tools: new ToolRegistry(STATE_TOOLS), now: () => now });
  const model = await loadModel({ modelPath, threads: 1, contextSize: STATE_CONTEXT });
  const fresh = () => Session.create(deps, { root, kind: 'agent', mode: 'auto', title: 'state kill loop', model: model.path });
  const newest = store.listSessions().pop();
  let o = open(deps, newest ? Session.open(deps, newest.id) : fresh(), model, dir);

  const began = performance.now();
  const restored = await o.agent.restoreState();
  tell({
    t: 'restored', s: o.agent.session.id, restored, reason: o.notices.join('\n') || undefined,
    tokens: o.agent.engine.cachedTokens(), ms: Math.round(performance.now() - began),
  });
  const first = await sendNext(o, missing);
  tell({
    t: 'answered', s: o.agent.session.id, answer: first.answer, expected: first.expected,
    reused: first.request.reusedTokens, prompt: first.request.promptTokens, cause: first.request.cause,
  });
  tell({ t: 'ready' });
  if (flag === '--check') return;

  for (;;) {
    if (o.agent.engine.cachedTokens() > STATE_SESSION_CAP) {
      await o.agent.dispose();
      o = open(deps, fresh(), model, dir);
      tell({ t: 'session', s: o.agent.session.id });
    }
    await sendNext(o, missing);
    const tokens = o.agent.engine.cachedTokens();
    tell({ t: 'save-begin', s: o.agent.session.id, tokens });
    const at = performance.now();
    await o.agent.saveState();
    tell({ t: 'save-end', s: o.agent.session.id, tokens, ms: Math.round(performance.now() - at) });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`child failed: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  },
);
