/**
 * Where a path a command names really leads, as the kernel would walk it for that command: part
 * by part, each symlink followed before a later `..` (so `link/../x` is the link target's
 * sibling, not the workspace's), `/proc/self/cwd` and `/proc/self/root` read as the command's own
 * folder and `/`, never as Keel's. A path through another process's folders or a descriptor
 * link (`/proc/N/cwd`, `/proc/self/fd/9`, `/dev/fd/9`) can lead anywhere: it is reported as such.
 * And the links below a folder that a recursive reader would follow.
 */
import fs from 'node:fs';
import path from 'node:path';

/** The real path, or `anywhere` with the part that can lead anywhere. */
export type Resolved = { abs: string } | { anywhere: string };

const SELF = /^\/proc\/(self|thread-self)(\/task\/\d+)?$/;
const OTHER = /^\/proc\/\d+(\/task\/\d+)?$/;

/** Resolves `given` (absolute, or relative to `root`; `~` already expanded) for a command run in `root`. */
export function resolveForCommand(given: string, root: string, depth = 0): Resolved {
  if (depth > 40) return { anywhere: `${given} (too many links)` };
  let cur = given.startsWith('/') ? '/' : root;
  const parts = given.split('/');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (part === '' || part === '.') continue;
    if (part === '..') {
      cur = path.dirname(cur);
      continue;
    }
    const next = path.join(cur, part);
    if (SELF.test(cur) || OTHER.test(cur)) {
      const other = OTHER.test(cur);
      if ((part === 'cwd' || part === 'root') && !other) {
        cur = part === 'cwd' ? root : '/';
        continue;
      }
      if (part === 'fd' && !other && /^[012]$/.test(parts[i + 1] ?? '') && i + 2 === parts.length) return { abs: `${next}/${parts[i + 1]}` };
      if (['cwd', 'root', 'fd', 'map_files', 'exe', 'environ', 'mem', 'fdinfo'].includes(part)) return { anywhere: next };
      cur = next;
      continue;
    }
    if (next === '/proc/self' || next === '/proc/thread-self') {
      cur = next;
      continue;
    }
    let link: string | undefined;
    try {
      if (fs.lstatSync(next).isSymbolicLink()) link = fs.readlinkSync(next);
    } catch {
      // Not there: the rest is joined as written.
    }
    if (link === undefined) {
      cur = next;
      continue;
    }
    const target = resolveForCommand(link.startsWith('/') ? link : `${cur}/${link}`, root, depth + 1);
    if ('anywhere' in target) return target;
    cur = target.abs;
  }
  return { abs: cur };
}

/** The links below a path, `too-many` to walk (a reader of it cannot be checked, so it asks), or `missing`. */
export type LinksBelow = Resolved[] | 'too-many' | 'missing';

/**
 * The real targets of the symlinks below `folder` (itself included, followed where it is one),
 * walked to `budget` entries.
 */
export function linkTargetsBelow(folder: string, root: string, budget = 20_000): LinksBelow {
  if (!fs.existsSync(folder)) return 'missing';
  const found: Resolved[] = [];
  const stack = [folder];
  let seen = 0;
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (++seen > budget) return 'too-many';
      const abs = path.join(dir, e.name);
      if (e.isSymbolicLink()) found.push(resolveForCommand(abs, root));
      else if (e.isDirectory()) stack.push(abs);
    }
  }
  return found;
}
