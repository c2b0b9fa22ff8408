/**
 * Where Keel keeps its data, shared by the app and the `keel` command line so both see the same
 * sessions: `$KEEL_HOME` when set, otherwise `~/.keel`.
 *
 *   <home>/keel.db                     the session store (SQLite, WAL)
 *   <home>/state/session-<id>.bin      a session's saved KV cache (+ `.bin.json`: the model identity)
 *   <home>/checkpoints/session-<id>/   a session's checkpoints: the shadow git repository of its workspace
 *   <home>/speed/<key>.json            a model's speed measured here (`keel doctor --measure`: llm/speed.ts)
 *
 * Session ids are never reused, so a state file can only ever belong to the session it names.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { removeStates } from './llm/stateFiles.js';
import { checkpointsDir, removeCheckpoints } from './checkpoints/open.js';

/** A data folder Keel cannot use: one sentence naming it and what to do. */
export class KeelHomeError extends Error {}

/**
 * The data folder, absolute, created if missing. One that cannot be a data folder (a file, a
 * read-only place, inside /proc or /sys, where Node's recursive mkdir can loop for ever) throws a
 * KeelHomeError naming the path and what to do.
 */
export function keelHome(): string {
  const fromEnv = process.env.KEEL_HOME;
  const given = fromEnv !== undefined && fromEnv !== '';
  const home = path.resolve(given ? fromEnv : path.join(os.homedir(), '.keel'));
  ensureDataFolder(home, given ? 'KEEL_HOME' : 'the default data folder');
  return home;
}

const SYSTEM_FOLDERS = ['/proc', '/sys', '/dev'];

/** Creates `home` one level at a time after checking what is already there; throws KeelHomeError. */
export function ensureDataFolder(home: string, source: string): void {
  const fix = source === 'KEEL_HOME' ? 'set KEEL_HOME to a folder you can write to' : 'set KEEL_HOME to a folder you can write to, or fix that path';
  const missing: string[] = [];
  let at = home;
  while (!fs.existsSync(at)) {
    missing.unshift(at);
    at = path.dirname(at);
  }
  const real = path.join(fs.realpathSync(at), path.relative(at, home));
  const system = SYSTEM_FOLDERS.find((dir) => real === dir || real.startsWith(`${dir}/`));
  if (system) throw new KeelHomeError(`Keel cannot keep its data in ${home} (${source}): it is inside ${system}, which holds no files; ${fix}.`);
  if (!fs.statSync(at).isDirectory()) {
    throw new KeelHomeError(`Keel cannot keep its data in ${home} (${source}): ${at === home ? 'it' : at} is a file, not a folder; ${fix}, or move that file away.`);
  }
  try {
    for (const dir of missing) fs.mkdirSync(dir);
    fs.accessSync(home, fs.constants.W_OK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'EROFS' || code === 'EACCES' || code === 'EPERM' ? 'it is read-only' : `it cannot be created (${(e as Error).message})`;
    throw new KeelHomeError(`Keel cannot keep its data in ${home} (${source}): ${why}; ${fix}.`);
  }
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

/** What a data folder holds on disk: the sessions' checkpoints (shadow repositories) and their saved states. */
export interface DataUsage {
  checkpoints: { bytes: number; sessions: number };
  states: { bytes: number };
}

/**
 * The bytes the data folder's checkpoints and saved states take (files as stored, links not
 * followed). Saved states are kept within their budget (llm/stateFiles.ts); checkpoints are not
 * pruned (a rewind with files needs every one of its session's) and go only with their session.
 */
export function dataUsage(dataFolder: string): DataUsage {
  const checkpoints = path.join(dataFolder, 'checkpoints');
  const sessions = readdirOrNone(checkpoints).filter((name) => name.startsWith('session-'));
  return {
    checkpoints: { bytes: sessions.reduce((sum, name) => sum + folderBytes(path.join(checkpoints, name)), 0), sessions: sessions.length },
    states: { bytes: folderBytes(path.join(dataFolder, 'state')) },
  };
}

function folderBytes(dir: string): number {
  let total = 0;
  for (const name of readdirOrNone(dir)) {
    const abs = path.join(dir, name);
    const st = fs.lstatSync(abs, { throwIfNoEntry: false });
    if (st?.isDirectory()) total += folderBytes(abs);
    else if (st?.isFile()) total += st.size;
  }
  return total;
}

function readdirOrNone(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
