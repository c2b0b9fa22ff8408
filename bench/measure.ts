import { formatId } from '../main/core/hygiene/ids.js';
import type { Inserted } from '../main/core/hygiene/types.js';

/** Nanoseconds since an arbitrary origin (monotonic). */
export function nowNs(): number {
  return Number(process.hrtime.bigint());
}

/** The value at quantile q (0..1) of `values`, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const s = values.slice().sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** A duration in nanoseconds as µs or ms. */
export function fmtNs(ns: number): string {
  if (!Number.isFinite(ns)) return '–';
  if (ns < 1e6) return `${(ns / 1e3).toFixed(ns < 1e4 ? 1 : 0)} µs`;
  return `${(ns / 1e6).toFixed(2)} ms`;
}

export function fmtInt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/**
 * Tokens, approximately: runs of letters, digits and underscores count one each, every other
 * non-space character counts one (regex /[A-Za-z0-9_]+|[^\sA-Za-z0-9_]/g). Real BPE tokenizers
 * split long identifiers further and merge some punctuation; this is a stable, model-free proxy.
 */
export function countTokens(text: string): number {
  let n = 0;
  const re = /[A-Za-z0-9_]+|[^\sA-Za-z0-9_]/g;
  while (re.exec(text) !== null) n++;
  return n;
}

/**
 * The same call answered in full, without hygiene: the bracket and the whole stored body. For a
 * stub that is the text it stands for; for `Same result as` the listing again; for a capped output
 * the whole output; a recall is already in full.
 */
export function answeredInFull(ins: Inserted): string {
  if (ins.kind === 'recall') return ins.text;
  if (ins.kind === 'same') return ins.body === '' ? `[${formatId(ins.number)}]` : `[${formatId(ins.number)}]\n${ins.body}`;
  if (!ins.text.includes('\n')) return ins.text; // one line: an empty read, a created or deleted file, an unchanged write
  const bracket = ins.text.slice(0, ins.text.indexOf('\n'));
  return ins.body === '' ? bracket : `${bracket}\n${ins.body}`;
}
