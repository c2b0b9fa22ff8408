import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Entry } from './mirror.js';

/** A file's state on disk as git would record it, or undefined when there is no file or link there. */
export function diskEntry(abs: string): (Entry & { content: Buffer }) | undefined {
  const st = lstat(abs);
  if (!st) return undefined;
  let content: Buffer;
  let mode: string;
  try {
    if (st.isSymbolicLink()) {
      content = fs.readlinkSync(abs, { encoding: 'buffer' });
      mode = '120000';
    } else if (st.isFile()) {
      content = fs.readFileSync(abs);
      mode = st.mode & 0o100 ? '100755' : '100644';
    } else {
      return undefined;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined; // gone since
    throw err;
  }
  return { mode, oid: blobId(content), content };
}

/** git's blob id of some content. */
export function blobId(content: Buffer): string {
  return crypto.createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

export function lstat(abs: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(abs);
  } catch {
    return undefined;
  }
}

export function readable(abs: string): boolean {
  try {
    fs.closeSync(fs.openSync(abs, 'r'));
    return true;
  } catch {
    return false;
  }
}

/** Whether a folder on the way to `rel` is a link or not a folder (git refuses such a path). */
export function behindLink(root: string, rel: string): boolean {
  let at = root;
  for (const part of rel.split('/').slice(0, -1)) {
    at = path.join(at, part);
    const st = lstat(at);
    if (!st) return false;
    if (!st.isDirectory()) return true;
  }
  return false;
}

/** Whether a folder on the way to `rel` holds a `.git`: a repository of its own, which git records none of. */
export function inRepositoryOfItsOwn(root: string, rel: string): boolean {
  let at = root;
  for (const part of rel.split('/').slice(0, -1)) {
    at = path.join(at, part);
    if (fs.existsSync(path.join(at, '.git'))) return true;
  }
  return false;
}

export function readdirOrNone(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

export function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

export function folderBytes(dir: string): number {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) total += folderBytes(abs);
    else if (e.isFile()) total += fs.statSync(abs).size;
  }
  return total;
}

/** The files and links below a folder (relative paths), `.git` left out; undefined past `most`. */
export function filesIn(abs: string, rel: string, most: number): string[] | undefined {
  const out: string[] = [];
  const visit = (dirAbs: string, dirRel: string): boolean => {
    let kids: fs.Dirent[];
    try {
      kids = fs.readdirSync(dirAbs, { withFileTypes: true });
    } catch {
      return true; // gone or unreadable: nothing of it to record
    }
    for (const d of kids) {
      if (d.name === '.git') continue;
      const sub = `${dirRel}/${d.name}`;
      if (d.isDirectory()) {
        if (!visit(path.join(dirAbs, d.name), sub)) return false;
      } else if (out.push(sub) > most) return false;
    }
    return true;
  };
  return visit(abs, rel) ? out : undefined;
}
