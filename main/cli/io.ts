import fs from 'node:fs';
import { SqliteStore } from '../db/store.js';
import type { SessionRow } from '../core/state/types.js';

/** Where a command writes: process.stdout and process.stderr, or a collector in tests. */
export interface Writer {
  write(text: string): unknown;
  /** Set on a terminal: progress is drawn in place only there. */
  isTTY?: boolean;
}

export interface Io {
  out: Writer;
  err: Writer;
}

/** Bad input from the person (unknown id, missing file…): printed as is, exit code 1. */
export class CliError extends Error {}

/** A command line Keel cannot read (an unknown flag, a missing argument): printed as is; `keel run` exits 2 for it. */
export class UsageError extends CliError {}

/** A session id as `keel sessions` lists it: a positive decimal integer. */
export function parseSessionId(given: string | undefined): number {
  if (given === undefined) throw new CliError('A session id is needed (see `keel sessions`).');
  if (!/^\d+$/.test(given.trim()) || Number(given) < 1) {
    throw new CliError(`"${given}" is not a session id: ids are the numbers \`keel sessions\` lists.`);
  }
  return Number(given);
}

/** A positive integer option (`--offset`, `--threads`…), or undefined when not given. */
export function parseCount(name: string, given: string | undefined): number | undefined {
  if (given === undefined) return undefined;
  if (!/^\d+$/.test(given.trim()) || Number(given) < 1) throw new CliError(`--${name} needs a positive whole number, not "${given}".`);
  return Number(given);
}

/** The store at `file`. A database Keel cannot use throws StoreError naming it; it is never overwritten. */
export function openStore(file: string): SqliteStore {
  return new SqliteStore(file);
}

export function requireSession(store: SqliteStore, id: number): SessionRow {
  const row = store.getSession(id);
  if (!row) throw new CliError(`There is no session ${id} in ${store.file} (see \`keel sessions\`).`);
  return row;
}

/** Checks a workspace folder exists before anything is created for it. */
export function requireFolder(dir: string, absolute: string): void {
  if (!fs.existsSync(absolute)) throw new CliError(`The workspace ${absolute} does not exist.`);
  if (!fs.statSync(absolute).isDirectory()) throw new CliError(`The workspace ${absolute} is not a folder (given as ${dir}).`);
}
