/**
 * A session's saved KV states on disk. Each save writes a new state file under a fresh name, then
 * replaces the metadata naming it with one rename: a kill at any moment leaves the previous pair or
 * the new one, and a file a kill left half-written is never named by any metadata.
 *
 *   <state>/session-<id>.bin.json     { identity, state: "session-<id>.bin.<name>", tokens, bytes, pendingCause }
 *   <state>/session-<id>.bin.<name>   the state node-llama-cpp wrote
 */
import fs from 'node:fs';
import path from 'node:path';
import type { StateMeta } from '../core/engine/types.js';

export interface SavedMeta extends StateMeta {
  /** Everything that must match for the state to be loaded (see LlamaEngine.stateIdentity). */
  identity: string;
  /** The state file's name, beside the metadata. */
  state: string;
  tokens: number;
  bytes: number;
}

export type MetaRead = { ok: true; meta: SavedMeta } | { ok: false; reason?: string };

/** A fresh name for the next state file of `file`. */
export function newStateFile(file: string): string {
  return `${file}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

export function readMeta(file: string): MetaRead {
  let text: string;
  try {
    text = fs.readFileSync(`${file}.json`, 'utf8');
  } catch {
    return { ok: false };
  }
  try {
    const meta = JSON.parse(text) as SavedMeta;
    if (typeof meta.identity !== 'string' || typeof meta.state !== 'string' || typeof meta.bytes !== 'number') throw new Error('fields missing');
    return { ok: true, meta };
  } catch (e) {
    return { ok: false, reason: `saved state unusable: ${file}.json cannot be read (${(e as Error).message})` };
  }
}

/**
 * Makes `stateFile` (written) the saved state of `file`: synced, then named by the metadata in one
 * rename; then removes what it replaces. Asynchronous throughout: it never holds the main thread,
 * and nothing in it needs the engine (a message may be answered meanwhile).
 */
export async function commitState(file: string, stateFile: string, meta: Omit<SavedMeta, 'state' | 'bytes'>): Promise<SavedMeta> {
  await fsyncFile(stateFile);
  const record: SavedMeta = { ...meta, state: path.basename(stateFile), bytes: (await fs.promises.stat(stateFile)).size };
  const temp = `${file}.json.tmp`;
  await fs.promises.writeFile(temp, JSON.stringify(record));
  await fsyncFile(temp);
  await fs.promises.rename(temp, `${file}.json`);
  removeStates(file, record.state);
  return record;
}

/** Removes the state files saved under `file` but `keep` (an earlier save's, or one a kill left half-written); returns them. */
export function removeStates(file: string, keep?: string): string[] {
  const dir = path.dirname(file);
  const base = path.basename(file);
  if (!fs.existsSync(dir)) return [];
  const removed: string[] = [];
  for (const name of fs.readdirSync(dir)) {
    const ours = name === base || name.startsWith(`${base}.`);
    const kept = keep !== undefined && (name === keep || name === `${base}.json`);
    if (ours && !kept) {
      fs.rmSync(path.join(dir, name), { force: true });
      removed.push(path.join(dir, name));
    }
  }
  return removed;
}

/**
 * Removes what saves cut short left beside `file`'s state (files its metadata does not name, a
 * metadata temp file): called when the state is restored and before each save, so a session whose
 * saves keep being killed, or keep failing (a full disk), holds at most one save's leftovers.
 * Unreadable metadata goes too: it names nothing.
 */
export function removeLeftovers(file: string): void {
  const saved = readMeta(file);
  removeStates(file, saved.ok ? saved.meta.state : undefined);
}

/**
 * Keeps the folder's saved states within `budget` bytes: the most recently saved stay, the oldest go
 * (a session whose state went simply reads its prompt again). `keep` (the one just saved) always stays.
 */
export function pruneStates(dir: string, budget: number, keep?: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const saved = fs.readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => {
      const file = path.join(dir, name.slice(0, -'.json'.length));
      const read = readMeta(file);
      return { file, bytes: read.ok ? read.meta.bytes : 0, at: fs.statSync(path.join(dir, name)).mtimeMs };
    })
    .sort((a, b) => b.at - a.at);
  const removed: string[] = [];
  let total = 0;
  for (const s of saved) {
    total += s.bytes;
    if (total > budget && s.file !== keep) {
      removeStates(s.file);
      removed.push(s.file);
      total -= s.bytes;
    }
  }
  return removed;
}

/**
 * The default budget for saved states: a tenth of the disk the data folder is on, at most 64 GiB — a
 * state is about (layers × KV heads × head size × 4) bytes per token, up to gigabytes for one session.
 */
export function defaultStateBudget(dataFolder: string): number {
  try {
    const s = fs.statfsSync(dataFolder);
    return Math.min(64 * 2 ** 30, Math.floor((s.blocks * s.bsize) / 10));
  } catch {
    return 8 * 2 ** 30;
  }
}

async function fsyncFile(file: string): Promise<void> {
  const handle = await fs.promises.open(file, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
