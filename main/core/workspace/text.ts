/**
 * Line counting as contract.md fixes it: `a\nb\n` and `a\nb` have 2 lines, `` has none.
 * Lines come without their ending; a `\r` before `\n` is not part of the line (a lone `\r` is).
 */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export function countLines(text: string): number {
  return splitLines(text).length;
}

/** A file's line ending: CRLF when most of its line breaks are CRLF. */
export function detectEol(text: string): '\n' | '\r\n' {
  const crlf = text.split('\r\n').length - 1;
  const lf = text.split('\n').length - 1 - crlf;
  return crlf > lf ? '\r\n' : '\n';
}

/** Text with every CRLF as LF (for diffs and matching shown to the model). */
export function toLf(text: string): string {
  return text.replace(/\r\n/g, '\n');
}

/** Text written with `\n` turned into the given line ending (a CRLF already there stays). */
export function withEol(text: string, eol: '\n' | '\r\n'): string {
  return eol === '\n' ? text : text.replace(/\r?\n/g, '\r\n');
}
