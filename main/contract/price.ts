/**
 * The price block of the contract (issue 36): what an action would make the next request re-read,
 * asked before the person takes it, and the limit above which the app asks first (settings.json
 * `askAboveSeconds`). contract.ts spreads PRICE_CALLS into CONTRACT; values only from leaf modules.
 */
import { PRICED_ACTIONS, type PricedActionKind } from '../core/price/actions.js';
import type { BreakPrice } from '../core/price/price.js';
import { SEQ, SESSION_ID, TEXT } from './args.js';
import { takes } from './shape.js';

export { PRICED_ACTIONS, type PricedActionKind };

/**
 * An action to price, as the app names it: `turn` is a turn's seq (TurnView.seq). A take-back
 * (undo, rewind, edit and resend, regenerate) without `turn` takes back the last turn, as Undo
 * does; a delete needs its turn; the other kinds take none.
 */
export interface ActionToPrice {
  kind: PricedActionKind;
  turn?: number;
}

/** What an action would cost the next request, before it is taken (core/price/price.ts), and whether to ask first. */
export interface PriceView extends BreakPrice {
  /** The price in words: "re-reads 5120 tokens, about 12 s on this machine". */
  text: string;
  /** The person's limit in seconds (settings.json `askAboveSeconds`); absent: never ask. */
  askAboveSeconds?: number;
  /** Whether the price is measured and above that limit: the app asks before taking the action. */
  asks: boolean;
}

const ACTION = {
  type: 'object', required: ['kind'], properties: { kind: { type: 'string', enum: PRICED_ACTIONS }, turn: SEQ },
} as const;

export const PRICE_CALLS = {
  /** What `action` would make the session's next request re-read (opens the session's model; refused while it answers). */
  price: takes(SESSION_ID, ACTION).as<(id: number, action: ActionToPrice) => Promise<PriceView>>(),
  /**
   * Saves the seconds a cache break may take before the app asks first, as typed: '' never asks;
   * anything but a number of 0 or more is refused in words and nothing is saved. Returns what was saved.
   */
  setAskAboveSeconds: takes(TEXT).as<(seconds: string) => Promise<number | undefined>>(),
};
