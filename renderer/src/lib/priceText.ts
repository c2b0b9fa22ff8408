import type { PriceView } from '../../../main/contract.js';
import type { Outcome } from '../stores/slice.js';

/**
 * What an action costs, in a line for its button or confirmation: main's sentence after `subject`
 * ("This re-reads 5120 tokens, about 12 s on this machine."), and where it is above the person's
 * limit, that it is. Undefined while main is asked.
 */
export function priceLine(got: Outcome<PriceView> | undefined, subject = 'This'): string | undefined {
  if (!got) return undefined;
  if (!got.ok) return `What ${subject.toLowerCase()} re-reads could not be worked out: ${got.error}`;
  const above = got.value.asks ? `: more than your limit of ${got.value.askAboveSeconds} s` : '';
  return `${subject} ${got.value.text}${above}.`;
}

/** The question put before an action above the limit; a price main could not work out asks too. */
export function priceQuestion(got: Outcome<PriceView>, limit: number | undefined): string {
  if (!got.ok) return `Keel could not work out what this re-reads (${got.error}), and you asked to be asked above ${limit} s. Go on?`;
  return `That ${got.value.text}: more than your limit of ${limit} s. Go on?`;
}
