/**
 * Where Keel keeps its data, shared by the app and the `keel` command line so both see the same
 * sessions: `$KEEL_HOME` when set, otherwise `~/.keel`.
 *
 *   <home>/keel.db                     the session store (SQLite, WAL)
 *   <home>/state/session-<id>.bin      a session's saved KV cache (+ `.bin.json`: the model identity)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

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

/** Where a session's KV state is saved between runs (its folder is created). */
export function stateFile(sessionId: number): string {
  const dir = path.join(keelHome(), 'state');
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, `session-${sessionId}.bin`);
}
