import { describe, expect, it } from 'vitest';
import { FOLD_HEAD, FOLD_TAIL, foldLines, resultBlocks } from './resultBlocks.js';

describe('resultBlocks', () => {
  it('cuts out the elided line main located and keeps every other line as is', () => {
    const text = '[#0017]\n> vitest run\n[1134 lines elided, full output #0017]\n Tests  3 failed\n[exit code 1]';
    const blocks = resultBlocks(text, { line: 2, count: 1134 });
    expect(blocks.map((b) => b.kind)).toEqual(['lines', 'elided', 'lines']);
    expect(blocks[1]).toMatchObject({ kind: 'elided', count: 1134, line: '[1134 lines elided, full output #0017]' });
    expect(blocks.flatMap((b) => (b.kind === 'lines' ? b.lines : [b.line])).join('\n')).toBe(text);
  });

  it('never takes a line for the elided line on its own: only where main says', () => {
    expect(resultBlocks('[#0002]\n[3 lines elided, full output #0002]').map((b) => b.kind)).toEqual(['lines']);
  });
});

describe('foldLines', () => {
  it('folds a long run to its head and tail, counting what it hides', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `l${i}`);
    const folded = foldLines(lines, false);
    expect(folded).toHaveLength(FOLD_HEAD + 1 + FOLD_TAIL);
    expect(folded[FOLD_HEAD]).toEqual({ kind: 'fold', count: 100 - FOLD_HEAD - FOLD_TAIL });
    expect(foldLines(lines, true)).toHaveLength(100);
  });
});
