import { nulSplit, type Git } from './git.js';
import type { Entry } from './mirror.js';

/** What a rewind, a revert and a diff read of what was recorded: a tree's entries and blobs, by git. */
/** The entries of `paths` in a recorded tree (absent paths are missing from the map), read with git's ls-tree. */
export function readEntries(git: Git, tree: string, paths: readonly string[]): Map<string, Entry> {
  const out = new Map<string, Entry>();
  for (let i = 0; i < paths.length; i += 500) {
    const chunk = paths.slice(i, i + 500);
    for (const line of nulSplit(git.run(['--literal-pathspecs', 'ls-tree', '-z', '--full-tree', tree, '--', ...chunk]))) {
      const tab = line.indexOf('\t');
      const [mode, type, oid] = line.slice(0, tab).split(' ');
      if (type === 'blob') out.set(line.slice(tab + 1), { mode, oid });
    }
  }
  return out;
}

/** The contents of recorded blobs, by id, in one `git cat-file --batch`. */
export function readBlobs(git: Git, oids: readonly string[]): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const unique = [...new Set(oids)];
  if (unique.length === 0) return out;
  const buf = git.run(['cat-file', '--batch'], unique.join('\n') + '\n');
  let at = 0;
  for (const oid of unique) {
    const nl = buf.indexOf(10, at);
    const size = Number(buf.subarray(at, nl).toString().split(' ')[2]);
    out.set(oid, buf.subarray(nl + 1, nl + 1 + size));
    at = nl + 1 + size + 1;
  }
  return out;
}
