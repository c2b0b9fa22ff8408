/**
 * `keel run` (a new session, one message, the agent works until it answers) and `keel say ID`:
 * one turn from a script. With `--json` standard output holds only JSON Lines (jsonEvents.ts);
 * without it, the answer. The exit code says how the turn ended (RUN_EXIT).
 */
import type { Approver } from '../../core/permissions/approval.js';
import type { Io, Writer } from '../io.js';
import { noticesOf, type Conversation } from './conversation.js';
import { describeApproval } from './describeApproval.js';
import { JsonEvents } from './jsonEvents.js';
import { ReplyPrinter } from './printer.js';

/** 0 answered; 1 failed (an error, a stop, the request limit); 2 bad usage; 3 a call needed an approval no one could give. */
export const RUN_EXIT = { answered: 0, failed: 1, usage: 2, needsApproval: 3 } as const;

export interface TurnOptions {
  json: boolean;
  /** `always` grants every approval; `never` (the default: a script has no one to ask) denies it. */
  approve: 'never' | 'always';
}

/** Runs one turn of a conversation and closes it; returns the exit code. */
export async function runTurn(c: Conversation, prompt: string, o: TurnOptions, io: Io): Promise<number> {
  const events = o.json ? new JsonEvents(io.out, c.session, (name) => c.mcpTool(name)) : undefined;
  const printer = events ? undefined : new ReplyPrinter(undefined, io.err);
  let answered = true;
  c.onEvent = (e) => {
    if (e.type === 'request') answered = true;
    if (e.type === 'tool') answered = false;
    for (const line of noticesOf(e)) io.err.write(`${line}\n`);
    events?.event(e);
    printer?.event(e);
  };
  let needed = false;
  c.approvals.approve = approver(o.approve, io.err, () => {
    needed = true;
    events?.denied();
  });
  // Announced by `keel run` (a new session) and `keel say` (the session resumed) alike.
  events?.started(c.engine);
  const unwatch = events && c.shells?.onChange((s) => s.sessionId === c.session.id && events.shell(s));
  c.onChild = (_parent, child, change) => events?.child(child, c.store.getSession(child)?.title ?? '', change);
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  try {
    const answer = await c.agent.send(prompt, { signal: controller.signal });
    // The turn is over: its background shells end now, their last events before the turn's.
    await c.endShells();
    const finished = answered && !controller.signal.aborted;
    if (events) {
      if (finished) events.completed(answer);
      else events.failed(controller.signal.aborted ? 'stopped' : 'the turn reached its request limit before the model answered');
    } else {
      printer?.endReply();
      if (finished) io.out.write(answer.endsWith('\n') ? answer : `${answer}\n`);
    }
    if (needed) return RUN_EXIT.needsApproval;
    return finished ? RUN_EXIT.answered : RUN_EXIT.failed;
  } catch (e) {
    const message = (e as Error).message ?? String(e);
    await c.endShells().catch(() => undefined);
    if (events) events.failed(message);
    else printer?.endReply();
    io.err.write(`keel: ${message}\n`);
    return needed ? RUN_EXIT.needsApproval : RUN_EXIT.failed;
  } finally {
    process.off('SIGINT', stop);
    unwatch?.();
    await c.close();
  }
}

function approver(given: TurnOptions['approve'], err: Writer, refused: () => void): Approver {
  if (given === 'always') return async () => 'allow';
  return async (request) => {
    err.write(`${describeApproval(request)}\n(denied: --approve never; nothing can be asked from a script)\n`);
    refused();
    return 'deny';
  };
}
