/**
 * Result ids in text: `#` and at least four lowercase hex digits (spec §1: `#0001`, `#000a`,
 * `#10000`), not glued to a word on either side, so `#abc` and `foo#0012bar` are not ids.
 */
export const ID_PATTERN = /(?<![\w#&])#[0-9a-f]{4,}(?![\w])/g;

export type Segment = { kind: 'text'; text: string } | { kind: 'id'; id: string };

/** Splits text into plain runs and ids, in order; joined back, the segments are the text. */
export function splitIds(text: string): Segment[] {
  const segments: Segment[] = [];
  let at = 0;
  for (const match of text.matchAll(ID_PATTERN)) {
    const start = match.index;
    if (start > at) segments.push({ kind: 'text', text: text.slice(at, start) });
    segments.push({ kind: 'id', id: match[0] });
    at = start + match[0].length;
  }
  if (at < text.length) segments.push({ kind: 'text', text: text.slice(at) });
  return segments;
}
