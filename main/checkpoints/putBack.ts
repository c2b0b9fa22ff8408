import fs from 'node:fs';
import path from 'node:path';
import { diskEntry } from './disk.js';
import type { Entry } from './mirror.js';

/** One file to put back: its recorded entry, or none (it did not exist then: removed). */
export interface PutBack {
  path: string;
  entry?: Entry;
}

/**
 * Whether every folder on the way to `rel` is a real folder inside the root (or missing): a link
 * among them would take a write out of the workspace, so such a path is never written or read.
 */
export function safePath(root: string, rel: string): boolean {
  if (rel === '' || path.isAbsolute(rel) || rel.split('/').some((p) => p === '..' || p === '.' || p === '')) return false;
  let at = root;
  for (const part of rel.split('/').slice(0, -1)) {
    at = path.join(at, part);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(at);
    } catch {
      return true; // missing from here on: created as folders
    }
    if (!st.isDirectory()) return false;
  }
  return true;
}

/** A file's state now, as git records it; undefined where there is none (or its way is not safe). */
export function currentEntry(root: string, rel: string): Entry | undefined {
  if (!safePath(root, rel)) return { mode: 'unsafe', oid: '' };
  const e = diskEntry(path.join(root, rel));
  return e && { mode: e.mode, oid: e.oid };
}


/**
 * Puts one file back. Each file is replaced whole (written beside it under a fixed name, then
 * renamed over it), so a kill leaves it old or new; the fixed name lets a finishing run clean up.
 * A link is written as a link (its target as recorded, never followed); a removed file's empty
 * folders go with it, up to the root.
 */
export function putBack(root: string, op: PutBack, content: Buffer | undefined): void {
  if (!safePath(root, op.path)) throw new Error(`${path.join(root, op.path)} lies behind a link or a file; it was not put back.`);
  const abs = path.join(root, op.path);
  const tmp = path.join(path.dirname(abs), `.${path.basename(abs)}.keel-restore`);
  fs.rmSync(tmp, { force: true });
  if (!op.entry) {
    fs.rmSync(abs, { force: true });
    removeEmptyFolders(root, path.dirname(abs));
    return;
  }
  if (content === undefined) throw new Error(`The recorded content of ${abs} is missing from the checkpoints.`);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  if (op.entry.mode === '120000') {
    fs.symlinkSync(content.toString(), tmp);
  } else {
    const fd = fs.openSync(tmp, 'w', op.entry.mode === '100755' ? 0o755 : 0o644);
    try {
      fs.writeFileSync(fd, content);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.chmodSync(tmp, op.entry.mode === '100755' ? 0o755 : 0o644);
  }
  fs.renameSync(tmp, abs);
}

function removeEmptyFolders(root: string, dir: string): void {
  while (dir !== root && dir.startsWith(root + path.sep)) {
    try {
      fs.rmdirSync(dir);
    } catch {
      return; // not empty, or gone
    }
    dir = path.dirname(dir);
  }
}
