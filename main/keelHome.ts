/**
 * Where Keel keeps its data, shared by the app and the `keel` command line so both see the same
 * sessions: `$KEEL_HOME` when set, otherwise `~/.keel`.
 *
 *   <home>/keel.db                     the session store (SQLite, WAL)
 *   <home>/state/session-<id>.bin      a session's saved KV cache (+ `.bin.json`: the model identity)
 *   <home>/checkpoints/session-<id>/   a session's checkpoints: the shadow git repository of its workspace
 *
 * Session ids are never reused, so a state file can only ever belong to the session it names.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { removeStates } from './llm/stateFiles.js';
import { checkpointsDir, removeCheckpoints } from './checkpoints/open.js';

/** The data folder, absolute, created if missing. */
export function keelHome(): string {
  const fromEnv = process.env.KEEL_HOME;
  const home = path.resolve(fromEnv !== undefined && fromEnv !== '' ? fromEnv : path.join(os.homedir(), '.keel'));
  fs.mkdirSync(home, { recursive: true });
  return home;
}

/** The session store's file. */
export function databasePath(): string {
  return path.join(keelHome(), 'keel.db');
}

/** Where a session's KV state is saved in a data folder (see llm/stateFiles.ts for the files beside it). */
export function sessionStateFile(dataFolder: string, sessionId: number): string {
  return path.join(dataFolder, 'state', `session-${sessionId}.bin`);
}

/** Where a session's KV state is saved between runs (its folder is created). */
export function stateFile(sessionId: number): string {
  const file = sessionStateFile(keelHome(), sessionId);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  return file;
}

/** Removes every saved-state file and the checkpoints of a session under `dataFolder`. Returns what it removed. */
export function removeSessionState(dataFolder: string, sessionId: number): string[] {
  const removed = removeStates(sessionStateFile(dataFolder, sessionId));
  const checkpoints = checkpointsDir(dataFolder, sessionId);
  if (fs.existsSync(checkpoints)) removed.push(checkpoints);
  removeCheckpoints(dataFolder, sessionId);
  return removed;
}
