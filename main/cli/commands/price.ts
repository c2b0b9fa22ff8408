import { keelHome } from '../../keelHome.js';
import { readSettings } from '../../app/settings.js';
import { asksFirst, describePrice } from '../../core/price/price.js';
import type { PricedAction } from '../../core/turn/loop.js';
import type { Io } from '../io.js';
import type { Conversation } from './conversation.js';

/** A question put to the person at the chat's prompt; resolves with their answer. */
export type Ask = (question: string) => Promise<string>;

/**
 * The cache break a history command makes, to price before it runs: /undo and /regenerate take
 * back the last turn, /rewind N and /edit N TEXT turn N onwards, /delete N turn N alone, /compact
 * the whole history. Undefined for anything else, and where the command is malformed (it says so itself).
 */
export function pricedAction(c: Conversation, line: string): PricedAction | undefined {
  const [command, ...args] = line.split(/\s+/);
  const turn = /^\d+$/.test(args.find((a) => a !== '--files') ?? '') ? Number(args.find((a) => a !== '--files')) : undefined;
  const last = c.session.turns().at(-1)?.seq;
  switch (command) {
    case '/undo':
    case '/regenerate':
      return last === undefined ? undefined : { kind: 'take back', turn: last };
    case '/rewind':
      return turn === undefined ? undefined : { kind: 'take back', turn };
    case '/edit':
      return turn === undefined || line.replace(/^\/edit\s+\S+\s?/, '').trim() === '' ? undefined : { kind: 'take back', turn };
    case '/delete':
      return turn === undefined ? undefined : { kind: 'delete', turn };
    case '/compact':
      return { kind: 'compact' };
    default:
      return undefined;
  }
}

/**
 * Says what `action` will cost the next request before it is paid ("/undo re-reads 0 tokens, about
 * 0.0 s on this machine."); where it costs more than the person's limit (settings.json
 * `askAboveSeconds`) and there is someone to ask, asks. Returns whether to go on.
 */
export async function paysPrice(c: Conversation, action: PricedAction, what: string, io: Io, ask?: Ask): Promise<boolean> {
  const price = await c.agent.priceOf(action);
  io.out.write(`${what} ${describePrice(price)}.\n`);
  const limit = readSettings(keelHome()).askAboveSeconds;
  if (!asksFirst(price, limit) || !ask) return true;
  const yes = /^y(es)?$/i.test((await ask(`That is more than your limit of ${limit} s (settings.json askAboveSeconds). Go on? [y/N] `)).trim());
  if (!yes) io.out.write('Nothing changed.\n');
  return yes;
}
