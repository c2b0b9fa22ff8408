import path from 'node:path';
import { withReverted } from '../../core/state/notes.js';
import { CheckpointError, type ChangedFile, type Checkpoints } from '../../core/checkpoints/types.js';
import type { SqliteStore } from '../../db/store.js';
import { checkpointsIn } from '../../checkpoints/open.js';
import { keelHome } from '../../keelHome.js';
import { CliError, requireSession, type Writer } from '../io.js';

/** A stored session's checkpoints, as the session itself would open them. */
function checkpointsOf(store: SqliteStore, id: number): { cp: Checkpoints; root: string } {
  const row = requireSession(store, id);
  return { cp: checkpointsIn(keelHome())(id, row.root, { fresh: false }), root: row.root };
}

function refused<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof CheckpointError) throw new CliError(err.message);
    throw err;
  }
}

/** One file's line: what happened to it, then its diff. */
function describe(c: ChangedFile): string {
  const what = c.kind === 'renamed' ? `renamed from ${c.from}` : c.kind;
  const notes = [c.binary ? 'binary' : '', c.large ? 'over the size limit: named, not copied' : '', c.link ? 'a link' : ''].filter((n) => n !== '');
  const head = `${c.path}: ${what}${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`;
  return c.diff === '' ? head : `${head}\n${c.diff}`;
}

/**
 * `keel changes ID [--turn N] [--json]`: the files session ID changed, against the session's start
 * (or turn N's), each as it is now with its diff.
 */
export function changesCommand(store: SqliteStore, id: number, turn: number | undefined, json: boolean, out: Writer): void {
  const { cp } = checkpointsOf(store, id);
  const changes = refused(() => cp.changes(turn));
  if (json) {
    out.write(`${JSON.stringify(changes, null, 2)}\n`);
    return;
  }
  const since = turn === undefined ? 'since it began' : `since turn ${turn} began`;
  if (changes.length === 0) out.write(`Session ${id} changed no files ${since}.\n`);
  else out.write(`Session ${id} changed ${changes.length} file${changes.length === 1 ? '' : 's'} ${since}:\n${changes.map(describe).join('\n')}\n`);
}

/** `keel revert ID FILE [--turn N]`: FILE back as it was at the session's start (or turn N's); recorded as the session's change. */
export function revertCommand(store: SqliteStore, id: number, file: string, turn: number | undefined, out: Writer): void {
  const { cp, root } = checkpointsOf(store, id);
  const rel = path.relative(root, path.resolve(root, file)).split(path.sep).join('/');
  if (rel.startsWith('..') || path.isAbsolute(rel)) throw new CliError(`${path.resolve(root, file)} is outside the workspace ${root}.`);
  refused(() => cp.revertFile(rel, turn));
  // The model still believes its own edit stands: its next message tells it (spec §10.3), as the app's revert does.
  store.updateSession(id, { revertedPending: withReverted(store.getSession(id)?.revertedPending, [rel]) });
  out.write(`${rel} is back as it was ${turn === undefined ? 'when the session began' : `when turn ${turn} began`}.\n`);
}
