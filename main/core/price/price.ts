import type { Conversation, ConversationMessage, Engine } from '../engine/types.js';
import { prefillSeconds, type PrefillSpeed } from './prefillSpeed.js';
import type { PricedActionKind } from './actions.js';

/**
 * The price of a cache break, told before it is paid (issue 36): what an action leaves the next
 * request to read again, in tokens, and about how long that takes on this machine. Taking turns
 * back is priced exactly: the engine maps the prompt the action leaves (core/engine PromptMap) and
 * says how much of it its cache still holds (on a hybrid model, from the checkpoint it would
 * restore). A compaction, a model switch and a new tool list rebuild the prompt from its start, so
 * the whole of it is read again; its size is this model's count of what it will hold, an estimate.
 */
export type BreakAction =
  /** Turn `turn` and every later turn go (undo, rewind, edit, regenerate). */
  | { kind: 'take back'; turn: number }
  /** Turn `turn` alone goes; the later turns stay. */
  | { kind: 'delete'; turn: number }
  /** The history is replaced by a summary about as long as `summaryText` (and the table of its reads); an empty one prices a floor. */
  | { kind: 'compact'; summaryText: string }
  /** Another model (or server) reads the whole conversation. */
  | { kind: 'switch model' }
  /** A new session with another tool list starts with the system prompt and tools alone. */
  | { kind: 'new tool list' };

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Compiles only while the contract's list of actions (actions.ts) names exactly this union's kinds. */
export const KINDS_AGREE: Same<BreakAction['kind'], PricedActionKind> = true;

export interface BreakPrice {
  action: BreakAction['kind'];
  /** Tokens the next request reads again because of the action (beyond the next message's own words). */
  tokens: number;
  /** Tokens the next request reads in all, its own message's (as the stand-in has them) included. */
  nextTokens: number;
  /** How many tokens of the prompt it keeps before those. */
  start: number;
  /** About how long re-reading `tokens` takes on this machine; undefined before the session has measured a request. */
  seconds?: number;
  /** About how long the next request's whole prefill (`nextTokens`) takes. */
  nextSeconds?: number;
  /** Whether `tokens` is the engine's exact count, or an estimate (another prompt, another model). */
  exact: boolean;
}

/**
 * The next message as it would be sent, its words a stand-in, with the notes it would carry were the
 * history only the turns `keep` keeps (a take-back can make a date or mode note due again).
 */
export type NextMessage = (keep: (turn: number) => boolean) => string;

/** `next`: what the next message sends now, with its notes (the session's nextConversation); `nextMessage`: the same after the action. */
export async function breakPrice(
  engine: Engine, next: Conversation, nextMessage: NextMessage, action: BreakAction, speed?: PrefillSpeed,
): Promise<BreakPrice> {
  const { tokens, start, exact } = await rereads(engine, next, nextMessage, action);
  const baseline = await engine.promptMap(next);
  // What the next message would read anyway (its own words and the template around them) is not the action's price.
  const price = Math.max(0, tokens - (baseline.ends.length - baseline.cached));
  return {
    action: action.kind, tokens: price, nextTokens: tokens, start, exact: exact && baseline.exact,
    ...(speed && { seconds: prefillSeconds(speed, price, start), nextSeconds: prefillSeconds(speed, tokens, start) }),
  };
}

/** Seconds, rounded as a person reads them: "about 0.4 s", "about 12 s", "about 3 min". */
export function describePrice(p: BreakPrice): string {
  const time = p.seconds === undefined ? 'not measured on this machine yet' : `about ${seconds(p.seconds)} on this machine`;
  return `re-reads ${p.exact ? '' : 'about '}${p.tokens} tokens, ${time}`;
}

/**
 * Whether to ask the person before paying `p`: only where they set a limit (settings.json
 * `askAboveSeconds`) and the price is measured and above it. An unmeasured price never asks.
 */
export function asksFirst(p: BreakPrice, limit: number | undefined): boolean {
  return limit !== undefined && p.seconds !== undefined && p.seconds > limit;
}

function seconds(s: number): string {
  if (s < 10) return `${s.toFixed(1)} s`;
  if (s < 120) return `${Math.round(s)} s`;
  return `${Math.round(s / 60)} min`;
}

async function rereads(
  engine: Engine, next: Conversation, nextMessage: NextMessage, action: BreakAction,
): Promise<{ tokens: number; start: number; exact: boolean }> {
  const before = next.messages.slice(0, -1);
  const read = async (messages: ConversationMessage[], exact: boolean, whole = false) => {
    const map = await engine.promptMap({ ...next, messages });
    // A whole read (another model) keeps nothing; otherwise the engine says what its cache keeps.
    const start = whole ? 0 : map.cached;
    return { tokens: map.ends.length - start, start, exact: exact && map.exact };
  };
  switch (action.kind) {
    case 'take back':
    case 'delete': {
      const goes = (turn: number) => (action.kind === 'delete' ? turn === action.turn : turn >= action.turn);
      const kept = before.filter((m) => m.turn === undefined || !goes(m.turn));
      // A compaction's summary, which the first message after it carried, goes with the next message instead (conversation.ts).
      const summary = before.filter((m) => m.turn !== undefined && goes(m.turn))
        .flatMap((m) => (m.role === 'user' ? m.sections ?? [] : [])).find((s) => s.kind === 'summary');
      const words = nextMessage((turn) => !goes(turn));
      return read([...kept, user(summary ? `${summary.text}\n\n${words}` : words)], true);
    }
    case 'compact':
      // The system prompt and tools stay (the cache keeps them); the summary replaces the history.
      return read([user(`${action.summaryText}\n\n${nextMessage(() => false)}`)], false);
    case 'switch model':
      return read([...before, user(nextMessage(() => true))], false, true);
    case 'new tool list':
      return read([user(nextMessage(() => false))], false, true);
  }
}

function user(text: string): ConversationMessage {
  return { role: 'user', text };
}
