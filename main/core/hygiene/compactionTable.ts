import { contextConfig } from '../config.js';
import { formatId } from './ids.js';
import type { ReadRecord } from './types.js';

/**
 * Spec §7: the table of the reads a summary covers. `reads` are the full reads (no stubs) of the
 * turns being summarised, oldest first. The newest read of each file (by absolute path) is kept,
 * newest last, at most `compaction.rows`; the path is the one that read's call gave.
 * With no reads there is no table: ''.
 */
export function compactionTable(reads: readonly ReadRecord[]): string {
  const newestByFile = new Map<string, ReadRecord>();
  for (const read of reads) {
    newestByFile.delete(read.absPath);
    newestByFile.set(read.absPath, read);
  }
  const rows = [...newestByFile.values()].slice(-contextConfig.compaction.rows);
  if (rows.length === 0) return '';
  const c = contextConfig.compaction;
  const lines = rows.map((r) => {
    const span = r.total === 0 ? 'empty' : `${r.start}-${r.end} of ${r.total}`;
    return `| ${r.pathGiven} | ${span} | ${r.hash.slice(0, contextConfig.sha_digits)} | ${formatId(r.number)} |`;
  });
  return [c.heading, '', c.intro, '', '| Path | Lines | sha | Result |', '|---|---|---|---|', ...lines].join('\n');
}

/** What replaces the history after compaction: the summary, then the table after a blank line. */
export function compactionText(summary: string, reads: readonly ReadRecord[]): string {
  const table = compactionTable(reads);
  return table === '' ? summary : `${summary}\n\n${table}`;
}
