import path from 'node:path';
import type { ChangedFile, ChangesView, PutBackFile, RewindPlanView } from '../contract.js';
import { SessionError } from '../core/state/deps.js';
import type { Session } from '../core/session/session.js';

/**
 * The Changes tab and the rewind dialog's list, from the session's checkpoints (contract.md
 * "Checkpoints"). Where the files were not recorded (a session from before Keel recorded them, or
 * a snapshot that failed) the view says why instead, and a rewind is conversation only.
 */
export function changesView(session: Session, since?: number): ChangesView {
  const base = { sessionId: session.id, ...(since === undefined ? {} : { since }), turns: pickableTurns(session) };
  const files = refusal(() => session.files.changes(since));
  return typeof files === 'string' ? { ...base, files: [], unavailable: files } : { ...base, files };
}

/**
 * Takes back one hunk of a file, as the view showed it: `shown` must still be that hunk's text
 * now, or the file changed under the person (from outside, or by the session since) and nothing
 * is touched. The revert is recorded as the session's change, so a later rewind still works.
 */
export function revertShownHunk(session: Session, rel: string, hunk: number, shown: string, since?: number): void {
  const file = session.files.changes(since).find((f) => f.path === rel);
  const now = file?.hunks[hunk];
  if (now !== shown) {
    const why = !file ? 'the session\'s changes no longer include it' : now === undefined ? `it has ${file.hunks.length} hunk${file.hunks.length === 1 ? '' : 's'} now` : `hunk ${hunk + 1} reads otherwise now`;
    throw new SessionError(`${path.join(session.root, rel)} changed since its diff was shown (${why}); nothing was taken back. Look at its diff again.`);
  }
  session.history.revertHunk(rel, hunk, since);
}

/** What a rewind to turn `seq` (by default the turn Undo takes back) with files would do. */
export function rewindPlanView(session: Session, seq?: number): RewindPlanView {
  const target = seq ?? session.history.lastDone().seq;
  const got = refusal(() => ({ plan: session.files.plan(target), changes: session.files.changes(target) }));
  if (typeof got === 'string') return { seq: target, canRewindFiles: false, unavailable: got, putBack: [], left: [], large: [] };
  const { plan, changes } = got;
  return { seq: target, canRewindFiles: true, putBack: plan.restored.map((p) => ({ path: p, how: howPutBack(p, changes) })), left: plan.left, large: plan.large };
}

/** How a rewind puts a file back: one created since is removed, one deleted (or renamed away) comes back. */
function howPutBack(rel: string, changes: ChangedFile[]): PutBackFile['how'] {
  const c = changes.find((f) => f.path === rel);
  if (c?.kind === 'created' || c?.kind === 'renamed') return 'removed';
  if (c?.kind === 'deleted' || changes.some((f) => f.from === rel)) return 'recreated';
  return 'restored';
}

/** The turns a view can start from: those in the history now (not taken back) whose files were recorded. */
function pickableTurns(session: Session): ChangesView['turns'] {
  const recorded = new Set(session.files.recordedTurns());
  return session.turns().filter((t) => t.status !== 'undone' && recorded.has(t.seq)).map((t) => ({ seq: t.seq, ...(t.words ? { words: t.words } : {}) }));
}

/** The checkpoints' refusal (files not recorded) as its message; anything else is a real failure. */
function refusal<T>(f: () => T): T | string {
  try {
    return f();
  } catch (err) {
    if (err instanceof SessionError) return err.message;
    throw err;
  }
}
