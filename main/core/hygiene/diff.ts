import { formatPatch, structuredPatch } from 'diff';

/**
 * The hunks of a change as the `diff` package writes them (3 lines of context, counts always
 * given, `-0,0` for an empty range, `\ No newline at end of file`), without the header lines:
 * the path is in the bracket. Both texts are LF, BOM removed.
 */
export function diffHunks(before: string, after: string): string {
  const patch = structuredPatch('a', 'b', before, after, undefined, undefined, { context: 3 });
  if (patch.hunks.length === 0) return '';
  const text = formatPatch(patch);
  return text.slice(text.indexOf('@@')).replace(/\n$/, '');
}
