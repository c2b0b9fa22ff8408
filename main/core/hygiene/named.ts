import { contextConfig } from '../config.js';
import { formatId, parseId } from './ids.js';
import type { ResultKind } from './types.js';

/** A template of loop.json `context.texts` as a pattern whose one group is the id it names. */
function pattern(template: string): RegExp {
  const escaped = template.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace(/\\\{\\\{(\w+)\\\}\\\}/g, (_, key: string) => (key === 'id' ? '(#[0-9a-f]+)' : '.*?'))}$`);
}

const STUB = pattern(contextConfig.texts.stub);
const SAME = pattern(contextConfig.texts.same_result);

/**
 * The number of the earlier result a stub (§2) or a `Same result as` (§6) names, read from its
 * inserted text: the spec fixes both sentences (loop.json `texts.stub`, `texts.same_result`).
 * A stub's sentence is its last line (its bracket holds the path, which may hold anything);
 * `Same result as` follows its id's bracket. Undefined for any other result.
 */
export function namedResult(r: { number: number; kind: ResultKind; inserted: string }): number | undefined {
  let match: RegExpExecArray | null = null;
  if (r.kind === 'stub') match = STUB.exec(r.inserted.slice(r.inserted.lastIndexOf('\n') + 1));
  if (r.kind === 'same') {
    const head = `[${formatId(r.number)}] `;
    if (r.inserted.startsWith(head)) match = SAME.exec(r.inserted.slice(head.length));
  }
  return match ? parseId(match[1]).number : undefined;
}
