import { contextConfig } from '../../core/config.js';
import { formatId, parseId } from '../../core/hygiene/ids.js';
import { splitLines } from '../../core/workspace/text.js';
import type { SqliteStore } from '../../db/store.js';
import { CliError, requireSession, type Writer } from '../io.js';

export interface RecallWindow {
  /** First line, 1-based (default 1). */
  offset?: number;
  /** Lines to show (default `recall.max_lines`, 2000). */
  limit?: number;
}

/**
 * `keel recall ID RESULT` (and `/recall`): a stored result's full body, paged like the recall tool
 * (`lines A-B of N`), after what produced it: its tool, arguments, path and hash.
 */
export function recallResult(store: SqliteStore, sessionId: number, given: string, window: RecallWindow, out: Writer): void {
  requireSession(store, sessionId);
  const { number, label } = parseId(given);
  const row = number === undefined ? undefined : store.getResult(sessionId, number);
  if (!row || number === undefined) {
    const last = store.lastResultNumber(sessionId);
    const known = last === 0 ? 'it has no results yet' : `its results are ${formatId(1)} to ${formatId(last)}`;
    throw new CliError(`There is no stored result ${label} in session ${sessionId}: ${known}.`);
  }
  const id = formatId(number);
  const head = [`result ${id} of session ${sessionId} (${row.kind})`, `tool: ${row.tool}`, `arguments: ${row.args}`];
  if (row.pathGiven !== undefined || row.pathResolved !== undefined) {
    head.push(`path: ${row.pathGiven ?? ''}${row.pathResolved && row.pathResolved !== row.pathGiven ? ` (${row.pathResolved})` : ''}`);
  }
  if (row.fileHash !== undefined) head.push(`sha: ${row.fileHash}`);
  if (row.lineTotal !== undefined) head.push(`file lines: ${row.lineStart}-${row.lineEnd} of ${row.lineTotal}`);
  if (row.files !== undefined) {
    for (const f of JSON.parse(row.files) as { absPath: string; hash: string }[]) {
      head.push(`file: ${f.absPath} ${f.hash === '' ? 'deleted' : `sha ${f.hash}`}`);
    }
  }
  out.write(head.join('\n') + '\n');

  const lines = splitLines(row.body);
  const offset = window.offset ?? 1;
  const limit = window.limit ?? contextConfig.recall.max_lines;
  if (lines.length === 0) {
    out.write(`[recall ${id} empty]\n`);
    return;
  }
  if (offset > lines.length) {
    throw new CliError(`--offset ${offset} is past the end of ${id}, which has ${lines.length} ${lines.length === 1 ? 'line' : 'lines'}.`);
  }
  const shown = lines.slice(offset - 1, offset - 1 + limit);
  const last = offset + shown.length - 1;
  out.write(`[recall ${id} lines ${offset}-${last} of ${lines.length}]\n${shown.join('\n')}\n`);
  if (last < lines.length) out.write(`(${lines.length - last} more lines from line ${last + 1}: offset ${last + 1})\n`);
}
