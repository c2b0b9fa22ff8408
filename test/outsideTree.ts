import fs from 'node:fs';
import path from 'node:path';
import { sha256 } from '../main/core/hash.js';

/** One entry of a tree as lstat sees it: a symlink is recorded, never followed. */
export interface TreeEntry {
  type: 'file' | 'dir' | 'link' | 'other';
  mode: number;
  size: number;
  mtimeMs: number;
  /** sha256 of a file's bytes. */
  sha?: string;
  /** A folder's entry names, sorted. */
  names?: string[];
  /** A symlink's target as stored. */
  target?: string;
}

/**
 * Every entry under `dir` (itself included), keyed by absolute path and sorted, leaving out the
 * subtrees in `exclude` entirely: what the trust tests compare before and after, to prove that
 * nothing outside the workspace was written, created, deleted or touched.
 */
export function snapshotTree(dir: string, exclude: readonly string[] = []): Record<string, TreeEntry> {
  const out: Record<string, TreeEntry> = {};
  const skip = new Set(exclude);
  const visit = (abs: string): void => {
    if (skip.has(abs)) return;
    const st = fs.lstatSync(abs);
    const base = { mode: st.mode, size: st.size, mtimeMs: st.mtimeMs };
    if (st.isSymbolicLink()) {
      out[abs] = { type: 'link', ...base, target: fs.readlinkSync(abs) };
    } else if (st.isFile()) {
      out[abs] = { type: 'file', ...base, sha: sha256(fs.readFileSync(abs)) };
    } else if (st.isDirectory()) {
      const names = fs.readdirSync(abs).sort();
      out[abs] = { type: 'dir', ...base, names };
      for (const name of names) visit(path.join(abs, name));
    } else {
      out[abs] = { type: 'other', ...base };
    }
  };
  visit(dir);
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
