import type { Piece } from './outline.js';

/** A stretch of the prompt's text: [from, to). */
export interface Span {
  from: number;
  to: number;
}

/**
 * Gives every character of the prompt's text to exactly one piece, so that every token can be
 * given to the piece its first character belongs to and the pieces sum to the prompt.
 *
 * Each piece's own text is looked for in order, after the text found before it (a template keeps
 * the conversation's order), not inside the tool list, which a template may put anywhere and is
 * found beforehand (`tools`, cut back where a piece's text reaches into its edge). The template's text between two found texts (turn markers, headers, the
 * generation prompt) goes to the piece that follows it; the text after the last found piece goes to
 * that piece. A piece whose text is not found (a template that rewrote it, an empty reply) takes
 * the template's text between its neighbours where they are found side by side, or nothing.
 *
 * Returns each piece's span (empty for a piece with nothing) and whether its own text was found.
 */
export function locate(text: string, pieces: readonly Piece[], tools?: Span): { spans: Span[]; found: boolean[] } {
  const own: (Span | undefined)[] = pieces.map(() => undefined);
  let list = tools && { ...tools };
  let cursor = 0;
  pieces.forEach((piece, i) => {
    if (piece.kind === 'tools') return;
    const at = find(text, piece.texts, cursor, list);
    if (!at) return;
    own[i] = at;
    cursor = at.to;
    // The tool list was found as the text its render adds, whose edges may hold a few characters
    // of this piece (text the two renders share there): the piece keeps them.
    if (list && at.from < list.to && at.to > list.from) list = at.from <= list.from ? { from: at.to, to: list.to } : { from: list.from, to: at.from };
  });
  const listAt = pieces.findIndex((p) => p.kind === 'tools');
  if (listAt >= 0 && list && list.to > list.from) own[listAt] = list;
  // The found texts in the prompt's order; each takes the template's text before it.
  const found = own.flatMap((span, i) => (span ? [{ i, ...span }] : [])).sort((a, b) => a.from - b.from);
  const spans: Span[] = pieces.map(() => ({ from: 0, to: 0 }));
  found.forEach((f, k) => {
    spans[f.i] = { from: k === 0 ? 0 : found[k - 1].to, to: k === found.length - 1 ? text.length : f.to };
  });
  if (found.length === 0 && pieces.length > 0) spans[pieces.length - 1] = { from: 0, to: text.length };
  // A piece not found, between two found side by side: the last such one takes the text between them.
  const rank = new Map(found.map((f, k) => [f.i, k]));
  for (let i = 0; i < pieces.length; i++) {
    if (own[i]) continue;
    let j = i;
    while (j + 1 < pieces.length && !own[j + 1]) j++;
    const before = i > 0 ? rank.get(i - 1) : -1;
    const after = j + 1 < pieces.length ? rank.get(j + 1) : found.length;
    if (before !== undefined && after !== undefined && after === before + 1 && found.length > 0) {
      const from = before < 0 ? 0 : found[before].to;
      const to = after === found.length ? text.length : found[after].from;
      spans[j] = { from, to };
      if (after < found.length) spans[found[after].i].from = to;
      else if (before >= 0) spans[found[before].i].to = from;
    }
    i = j;
  }
  return { spans, found: own.map((span) => span !== undefined) };
}

/** The first of `texts` found at or after `from`, not inside the tool list (a description that says the same). */
function find(text: string, texts: readonly string[], from: number, tools?: Span): Span | undefined {
  for (const t of texts) {
    let at = text.indexOf(t, from);
    while (at >= 0 && tools && at >= tools.from && at + t.length <= tools.to) at = text.indexOf(t, at + 1);
    if (at >= 0) return { from: at, to: at + t.length };
  }
  return undefined;
}
