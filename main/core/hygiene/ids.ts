import { contextConfig } from '../config.js';

/** `#` and the result's number in lowercase hex, at least `ids.digits` digits: #0001, #000a, #10000. */
export function formatId(number: number): string {
  return '#' + number.toString(16).padStart(contextConfig.ids.digits, '0');
}

/**
 * Reads an id as the model may write it: `#1`, `1`, `#0001` and `0001` name the same result.
 * `label` is the id echoed as given, with `#` (for "No stored result").
 */
export function parseId(given: string): { number?: number; label: string } {
  const bare = given.trim().replace(/^#/, '');
  const label = '#' + bare;
  if (!/^[0-9a-fA-F]+$/.test(bare)) return { label };
  const number = parseInt(bare, 16);
  return Number.isSafeInteger(number) && number > 0 ? { number, label } : { label };
}
