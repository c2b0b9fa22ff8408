import fs from 'node:fs';
import path from 'node:path';
import { sha256 } from '../main/core/hash.js';

/**
 * A workspace's files as a person would compare them, walked with lstat (a link is its target,
 * never followed): relative path → `file <x|-> SHA-256` or `link TARGET`. `skip` names top-level
 * folders left out (`.git`, an ignored `node_modules`). Computed apart from the checkpoints, so a
 * test or bench can hold a rewind's result against what the tree really was.
 */
export function treeFiles(root: string, skip: readonly string[] = ['.git']): Map<string, string> {
  const out = new Map<string, string>();
  const visit = (dir: string, rel: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const r = rel === '' ? e.name : `${rel}/${e.name}`;
      if (rel === '' && skip.includes(e.name)) continue;
      const abs = path.join(dir, e.name);
      if (e.isSymbolicLink()) out.set(r, `link ${fs.readlinkSync(abs)}`);
      else if (e.isDirectory()) visit(abs, r);
      else if (e.isFile()) out.set(r, `file ${fs.statSync(abs).mode & 0o100 ? 'x' : '-'} ${sha256(fs.readFileSync(abs))}`);
    }
  };
  visit(root, '');
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** One SHA-256 over the whole tree (see treeFiles). */
export function treeDigest(root: string, skip?: readonly string[]): string {
  return sha256([...treeFiles(root, skip)].map(([p, v]) => `${p}\0${v}\n`).join(''));
}
