/**
 * A tool result as the model got it, cut into runs of plain lines and the engine's elided line
 * (`[N lines elided, full output #id]`, spec §3). The text itself is never changed: joined with
 * newlines, the blocks' lines are the text.
 */
export type ResultBlock =
  | { kind: 'lines'; lines: string[] }
  | { kind: 'elided'; line: string; count: number; id: string };

const ELIDED = /^\[(\d+) lines elided, full output (#[0-9a-f]{4,})\]$/;

export function resultBlocks(text: string): ResultBlock[] {
  const blocks: ResultBlock[] = [];
  let run: string[] = [];
  for (const line of text.split('\n')) {
    const m = ELIDED.exec(line);
    if (!m) {
      run.push(line);
      continue;
    }
    if (run.length) blocks.push({ kind: 'lines', lines: run });
    run = [];
    blocks.push({ kind: 'elided', line, count: Number(m[1]), id: m[2]! });
  }
  if (run.length) blocks.push({ kind: 'lines', lines: run });
  return blocks;
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
