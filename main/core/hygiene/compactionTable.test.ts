import { describe, expect, it } from 'vitest';
import { compactionTable, compactionText } from './compactionTable.js';
import type { ReadRecord } from './types.js';

const rec = (number: number, absPath: string, pathGiven = absPath.slice(3), total = 10): ReadRecord =>
  ({ number, pathGiven, absPath, hash: `${number}`.padStart(8, '0') + 'f'.repeat(56), start: 1, end: total, total });

describe('compaction table (§7)', () => {
  it('keeps the newest read of each file, newest last, with the path its call gave', () => {
    const table = compactionTable([rec(1, '/w/a.ts'), rec(2, '/w/b.ts'), rec(3, '/w/a.ts', './a.ts')]);
    expect(table.split('\n').slice(-2)).toEqual([
      '| b.ts | 1-10 of 10 | 00000002 | #0002 |',
      '| ./a.ts | 1-10 of 10 | 00000003 | #0003 |',
    ]);
  });

  it('writes an empty file as empty, and has no table without reads', () => {
    expect(compactionTable([rec(1, '/w/e.txt', 'e.txt', 0)])).toContain('| e.txt | empty | 00000001 | #0001 |');
    expect(compactionText('Sum.', [])).toBe('Sum.');
  });

  it('keeps at most 50 rows: the newest', () => {
    const reads = Array.from({ length: 55 }, (_, i) => rec(i + 1, `/w/f${i + 1}.ts`));
    const rows = compactionTable(reads).split('\n').filter((l) => l.startsWith('| f'));
    expect(rows).toHaveLength(50);
    expect(rows[0]).toContain('#0006');
    expect(rows[49]).toContain('#0037');
  });

  it('follows the summary after one blank line', () => {
    expect(compactionText('Sum.', [rec(1, '/w/a.ts')])).toMatch(/^Sum\.\n\n## Files read before this summary\n\nRead a file again/);
  });
});
