import { contextConfig, fill } from '../config.js';

/**
 * Spec §3: a body over `cap.max_lines` lines or `cap.max_chars` characters keeps its head (whole
 * lines within head_lines and head_chars) and its tail (likewise), with the elided line between.
 * A first line longer than head_chars is cut to it and ends ` […cut]`. Characters are JavaScript
 * string length; a kept run counts its characters plus one per line break between them.
 * The bracket line is not part of the body and is never counted.
 */
export function capBody(body: string, id: string): string {
  return capped(body, id).text;
}

/**
 * The body as capBody gives it, and where its elided line stands in it (`at`: line index, 0 = the
 * body's first line) with the count of lines it stands for: known here, so no one parses the text
 * again to find it. No `elided` when the body was not capped.
 */
export function capped(body: string, id: string): { text: string; elided?: { at: number; count: number } } {
  const cap = contextConfig.cap;
  const lines = body.split('\n');
  if (lines.length <= cap.max_lines && body.length <= cap.max_chars) return { text: body };

  let head: string[];
  if (lines[0].length > cap.head_chars) {
    head = [lines[0].slice(0, cap.head_chars) + contextConfig.texts.cut];
  } else {
    head = takeWhole(lines, cap.head_lines, cap.head_chars);
  }
  const rest = lines.slice(head.length);
  const tail = takeWhole(rest.slice().reverse(), cap.tail_lines, cap.tail_chars).reverse();
  const elided = rest.length - tail.length;
  const marker = fill(contextConfig.texts.elided, { count: elided, id });
  return { text: [...head, marker, ...tail].join('\n'), elided: { at: head.length, count: elided } };
}

/** The longest run of whole lines from the start of `lines` within both limits. */
function takeWhole(lines: string[], maxLines: number, maxChars: number): string[] {
  let chars = 0;
  let count = 0;
  while (count < lines.length && count < maxLines) {
    const next = chars + (count > 0 ? 1 : 0) + lines[count].length;
    if (next > maxChars) break;
    chars = next;
    count++;
  }
  return lines.slice(0, count);
}

/** Where a capped result's elided line stands in its inserted text (line index, 0 = bracket line). */
export interface ElidedMark {
  line: number;
  count: number;
}

/**
 * The elided line of a result that was capped, found exactly: it carries the result's own id and
 * the count of body lines the inserted text lacks, so a file that merely contains such a line is
 * never taken for one. Undefined when the result was not capped.
 */
export function elidedMark(inserted: string, body: string, id: string): ElidedMark | undefined {
  const lines = inserted.split('\n');
  const count = body.split('\n').length - (lines.length - 2);
  if (count <= 0) return undefined;
  const marker = fill(contextConfig.texts.elided, { count, id });
  const line = lines.indexOf(marker, 1);
  return line > 0 ? { line, count } : undefined;
}
