import { describe, expect, it } from 'vitest';
import { asksFirst, describePrice, type BreakPrice } from './price.js';

const price = (seconds?: number) => ({ action: 'compact', tokens: 5120, nextTokens: 5130, start: 900, seconds, exact: false }) as BreakPrice;

describe('asksFirst: the app and the CLI ask before a cache break only above the person\'s limit', () => {
  it('asks where the measured seconds are above the limit, not at it or below', () => {
    expect(asksFirst(price(12.5), 10)).toBe(true);
    expect(asksFirst(price(10), 10)).toBe(false);
    expect(asksFirst(price(0.2), 0)).toBe(true);
    expect(asksFirst(price(0), 0)).toBe(false);
  });

  it('never asks without a limit, nor for a price not measured yet', () => {
    expect(asksFirst(price(600), undefined)).toBe(false);
    expect(asksFirst(price(undefined), 0)).toBe(false);
    expect(describePrice(price(undefined))).toBe('re-reads about 5120 tokens, not measured on this machine yet');
  });
});
