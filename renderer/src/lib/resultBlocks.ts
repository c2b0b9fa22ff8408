import type { ElidedMark } from '../../../main/contract.js';

/**
 * A tool result as the model got it, cut into runs of plain lines and the engine's elided line
 * (`[N lines elided, full output #id]`, spec §3), which main locates (`elided`): the view never
 * re-parses result text for structure. The text itself is never changed: joined with newlines, the
 * blocks' lines are the text.
 */
export type ResultBlock =
  | { kind: 'lines'; lines: string[] }
  | { kind: 'elided'; line: string; count: number };

export function resultBlocks(text: string, elided?: ElidedMark): ResultBlock[] {
  const lines = text.split('\n');
  if (!elided || elided.line >= lines.length) return [{ kind: 'lines', lines }];
  const before = lines.slice(0, elided.line);
  const after = lines.slice(elided.line + 1);
  return [
    ...(before.length ? [{ kind: 'lines' as const, lines: before }] : []),
    { kind: 'elided', line: lines[elided.line], count: elided.count },
    ...(after.length ? [{ kind: 'lines' as const, lines: after }] : []),
  ];
}

/** Runs longer than this are folded in the view (never in what the model got). */
export const FOLD_OVER = 40;
export const FOLD_HEAD = 12;
export const FOLD_TAIL = 8;

export type ViewLine = { kind: 'line'; text: string } | { kind: 'fold'; count: number };

/** A run of lines as the view shows it: head, a quiet fold marker, tail; or all of it. */
export function foldLines(lines: string[], unfolded: boolean): ViewLine[] {
  const all = lines.map((text): ViewLine => ({ kind: 'line', text }));
  if (unfolded || lines.length <= FOLD_OVER) return all;
  return [...all.slice(0, FOLD_HEAD), { kind: 'fold', count: lines.length - FOLD_HEAD - FOLD_TAIL }, ...all.slice(-FOLD_TAIL)];
}

/** A unified diff in a result (an edit's answer, spec §5): its +/- lines can be coloured. */
export function isDiff(text: string): boolean {
  return /^@@ /m.test(text);
}

export function diffClass(line: string): string | undefined {
  if (line.startsWith('+') && !line.startsWith('+++ ')) return 'diff-add';
  if (line.startsWith('-') && !line.startsWith('--- ')) return 'diff-del';
  if (line.startsWith('@@')) return 'diff-hunk';
  return undefined;
}
