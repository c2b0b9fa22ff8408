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
 * folders go with it, up to the root. Never into `.git`.
 *
 * A process in the workspace may swap a folder for a link while this runs (a check by path, then a
 * write by path, would follow it out). So on Linux every step goes through folder handles: each
 * folder on the way is opened with O_NOFOLLOW | O_DIRECTORY inside the one before it (through
 * `/proc/self/fd/N/NAME`, which the kernel resolves from the open folder, as openat does), and the
 * write, rename and removal name only a file inside the last handle. A link met on the way refuses.
 */
export function putBack(root: string, op: PutBack, content: Buffer | undefined): void {
  const abs = path.join(root, op.path);
  if (!safePath(root, op.path) || op.path.split('/')[0] === '.git') throw new Error(`${abs} lies behind a link or a file, or in .git; it was not put back.`);
  if (op.entry && content === undefined) throw new Error(`The recorded content of ${abs} is missing from the checkpoints.`);
  const folders = openFolders(root, op.path.split('/').slice(0, -1), op.entry !== undefined);
  try {
    if (!folders) {
      if (op.entry) throw new Error(`${abs} lies behind a link or a file; it was not put back.`);
      return; // removing, and its folder is not there: nothing to remove
    }
    const at = (name: string) => inFolder(folders.fds[folders.fds.length - 1], path.dirname(abs), name);
    const name = path.basename(abs);
    const tmp = at(`.${name}.keel-restore`);
    fs.rmSync(tmp, { force: true });
    if (!op.entry) {
      fs.rmSync(at(name), { force: true });
      removeEmptyFolders(folders, op.path.split('/').slice(0, -1), root);
      return;
    }
    if (op.entry.mode === '120000') {
      fs.symlinkSync(content!.toString(), tmp);
    } else {
      const mode = op.entry.mode === '100755' ? 0o755 : 0o644;
      const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, mode);
      try {
        fs.writeFileSync(fd, content!);
        fs.fchmodSync(fd, mode);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
    }
    fs.renameSync(tmp, at(name));
  } finally {
    folders?.fds.forEach((fd) => fs.closeSync(fd));
  }
}

/** Where /proc gives a path through an open folder (Linux); elsewhere the checked path is used. */
const VIA_FD = process.platform === 'linux' && fs.existsSync('/proc/self/fd');

/** A name inside an open folder: through its handle where the platform has one, else by the folder's path. */
function inFolder(fd: number, folderPath: string, name: string): string {
  return VIA_FD ? `/proc/self/fd/${fd}/${name}` : path.join(folderPath, name);
}

/**
 * Handles on the root and each folder of `parts` below it, each opened inside the one before with
 * O_NOFOLLOW (a link among them fails the open), created where missing when `create`. Undefined
 * when one is missing (not creating) or is not a folder.
 */
function openFolders(root: string, parts: string[], create: boolean): { fds: number[] } | undefined {
  const flags = fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW;
  const fds = [fs.openSync(root, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY)];
  let at = root;
  try {
    for (const part of parts) {
      const next = inFolder(fds[fds.length - 1], at, part);
      at = path.join(at, part);
      try {
        fds.push(fs.openSync(next, flags));
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT' || !create) {
          fds.forEach((fd) => fs.closeSync(fd));
          return undefined;
        }
        fs.mkdirSync(next);
        fds.push(fs.openSync(next, flags));
      }
    }
  } catch (err) {
    fds.forEach((fd) => fs.closeSync(fd));
    if (['ELOOP', 'ENOTDIR', 'EEXIST'].includes((err as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw err;
  }
  return { fds };
}

/** After a removal, each folder on the way that is now empty, deepest first, through its parent's handle. */
function removeEmptyFolders(folders: { fds: number[] }, parts: string[], root: string): void {
  for (let i = parts.length - 1; i >= 0; i--) {
    try {
      fs.rmdirSync(inFolder(folders.fds[i], path.join(root, ...parts.slice(0, i)), parts[i]));
    } catch {
      return; // not empty, or gone
    }
  }
}
