import { priceLine } from '../../lib/priceText.js';
import type { PricedAction } from './usePricedAction.js';

/** A confirmation's line saying what the action would re-read, before it is taken (main's figures). */
export function PriceLine({ priced, subject, testId = 'price-line' }: { priced: PricedAction; subject?: string; testId?: string }) {
  const line = priceLine(priced.got, subject);
  const above = priced.got?.ok === true && priced.got.value.asks;
  return (
    <p className={`price-line small${above ? ' price-above' : ' muted'}`} data-testid={testId}>
      {line ?? 'Working out what this re-reads…'}
    </p>
  );
}
