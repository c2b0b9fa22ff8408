import fs from 'node:fs';
import path from 'node:path';
import type { OpenCheckpoints } from '../core/checkpoints/types.js';
import { GitCheckpoints } from './gitCheckpoints.js';

/**
 * Where a session's checkpoints live in a data folder: `<data>/checkpoints/session-<id>` (the
 * shadow repository, its log, a rewind's journal). Session ids are never reused, so the folder can
 * only belong to the session it names.
 */
export function checkpointsDir(dataFolder: string, sessionId: number): string {
  return path.join(dataFolder, 'checkpoints', `session-${sessionId}`);
}

/** The sessions' checkpoints in a data folder, for SessionDeps.checkpoints. */
export function checkpointsIn(dataFolder: string): OpenCheckpoints {
  return (sessionId, root, o) => new GitCheckpoints({ dir: checkpointsDir(dataFolder, sessionId), root, fresh: o.fresh });
}

/** Removes a session's checkpoints (with the session). */
export function removeCheckpoints(dataFolder: string, sessionId: number): void {
  fs.rmSync(checkpointsDir(dataFolder, sessionId), { recursive: true, force: true });
}
