/**
 * What a workspace file's approval covers besides the file itself: the files its stdio entries
 * run that lie in the workspace. `node server.mjs` names `server.mjs`; the approval holds its hash,
 * so a changed script asks again as a changed `.mcp.json` does. Every word of the command line
 * that names a regular file inside the workspace (relative to the entry's folder) counts: the
 * command itself (`./run.sh`), a script given to an interpreter, a config file it reads. What
 * those files load in turn is not followed; the sandbox still bounds what it can do.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { inside } from './configFile.js';
import type { ConfigFile } from './config.js';

/** Larger files are covered by size and change time only (hashing them would stall every start). */
const MAX_HASHED_BYTES = 64 * 1024 * 1024;

/** The workspace files the file's entries run, relative to `root`, sorted, each once. */
export function filesRun(file: ConfigFile, root: string): string[] {
  const found = new Set<string>();
  for (const server of file.servers) {
    const t = server.transport;
    if (t.type !== 'stdio') continue;
    const cwd = t.cwd === undefined ? root : path.resolve(root, t.cwd);
    for (const word of [t.command, ...t.args]) {
      const real = workspaceFile(word, cwd, root);
      if (real) found.add(path.relative(root, real));
    }
  }
  return [...found].sort();
}

/**
 * The hash a workspace file is approved by: its own bytes' and those of each file it runs. ''
 * when the file cannot be used (nothing to approve).
 */
export function approvalHash(file: ConfigFile, root: string): string {
  if (file.hash === '' || file.broken) return '';
  const runs = filesRun(file, root);
  if (runs.length === 0) return file.hash;
  const h = crypto.createHash('sha256').update(`${file.hash}\n`);
  for (const rel of runs) h.update(`${rel}\0${fileDigest(path.join(root, rel))}\n`);
  return h.digest('hex');
}

function workspaceFile(word: string, cwd: string, root: string): string | undefined {
  if (word === '' || word.startsWith('-') || word.includes('\0')) return undefined;
  let real: string;
  try {
    real = fs.realpathSync.native(path.resolve(cwd, word));
    // lstat of the resolved path: only a regular file is read (never a FIFO or device: no hang).
    if (!fs.lstatSync(real).isFile()) return undefined;
  } catch {
    return undefined;
  }
  return inside(root, real) ? real : undefined;
}

function fileDigest(file: string): string {
  try {
    const stat = fs.statSync(file);
    if (stat.size > MAX_HASHED_BYTES) return `size ${stat.size} changed ${stat.mtimeMs}`;
    return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
  } catch (err) {
    return `unreadable ${(err as NodeJS.ErrnoException).code ?? ''}`;
  }
}
