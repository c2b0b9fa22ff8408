import type { ActionToPrice, PriceView } from '../contract.js';
import { asksFirst, describePrice, type BreakPrice } from '../core/price/price.js';
import type { PricedAction } from '../core/turn/loop.js';
import type { Session } from '../core/session/session.js';

/**
 * The app's action as the loop prices it (core/price): a take-back without a turn is Undo's (the
 * last turn); a turn named must be in the session's history now. Refused in words otherwise.
 */
export function pricedAction(session: Session, asked: ActionToPrice): PricedAction {
  if (asked.kind !== 'take back' && asked.kind !== 'delete') {
    if (asked.turn !== undefined) throw new Error(`A ${asked.kind} names no turn.`);
    return { kind: asked.kind };
  }
  const turns = session.turns();
  if (asked.turn === undefined) {
    if (asked.kind === 'delete') throw new Error('A delete names its turn.');
    const last = turns.at(-1)?.seq;
    if (last === undefined) throw new Error('There is no turn to take back.');
    return { kind: asked.kind, turn: last };
  }
  if (!turns.some((t) => t.seq === asked.turn)) throw new Error(`Turn ${asked.turn} is not in session ${session.id}'s history.`);
  return { kind: asked.kind, turn: asked.turn };
}

/** The price with its sentence, and whether the app asks first (the person's limit, `askAboveSeconds`). */
export function priceView(price: BreakPrice, askAboveSeconds: number | undefined): PriceView {
  return { ...price, text: describePrice(price), ...(askAboveSeconds !== undefined && { askAboveSeconds }), asks: asksFirst(price, askAboveSeconds) };
}
