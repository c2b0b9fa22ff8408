import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Git, nulSplit } from './git.js';

/** A file as git records it: its mode (`100644`, `100755`, `120000` for a link) and blob id. */
export interface Entry {
  mode: string;
  oid: string;
}

/** A file over the size limit: named by its size and modification time, never copied. */
export type LargeFiles = Record<string, string>;

export interface Snapshot {
  tree: string;
  /** Paths whose state differs from the previous snapshot (large files included). */
  changed: string[];
  /** Every file over the limit seen now, with its signature. */
  large: LargeFiles;
  /** Left out of the record, each with why (unreadable, a nested repository, not a file). */
  skipped: { path: string; why: string }[];
}

/**
 * The shadow repository: its index is the workspace as last recorded; a snapshot brings it up to
 * date (one walk with git's stat cache, then only the changed paths hashed) and writes its tree.
 * It honours the workspace's .gitignore files (git reads them from the work tree), never tracks
 * `.git`, stores links as links, and is the only thing it writes to (the git dir in Keel's data).
 */
export class ShadowRepo {
  readonly git: Git;
  private lastTree?: string;
  private lastLarge: LargeFiles = {};

  constructor(readonly dir: string, readonly root: string, private readonly maxFileBytes: number, binary?: string) {
    this.git = new Git(dir, root, binary);
  }

  get exists(): boolean {
    return fs.existsSync(path.join(this.dir, 'HEAD'));
  }

  /** Creates the repository (its own settings only: nothing of the person's git config applies). */
  init(): void {
    fs.mkdirSync(path.dirname(this.dir), { recursive: true });
    this.git.run(['init', '--quiet']);
    const config: [string, string][] = [
      ['core.autocrlf', 'false'], ['core.symlinks', 'true'], ['core.fileMode', 'true'], ['core.untrackedCache', 'true'],
      ['core.quotePath', 'false'], ['core.safecrlf', 'false'], ['gc.auto', '0'], ['core.bigFileThreshold', '512m'],
      ['user.name', 'Keel'], ['user.email', 'keel@localhost'],
    ];
    for (const [k, v] of config) this.git.run(['config', k, v]);
  }

  /**
   * Picks up where a reopened session left off: its large files. The tree is written again from
   * the index on the first snapshot (a kill may have come after the index moved, before the log).
   */
  resume(large: LargeFiles): void {
    this.lastTree = undefined;
    this.lastLarge = { ...large };
    // A kill during a snapshot can leave git's lock: this session's store is the only writer.
    fs.rmSync(path.join(this.dir, 'index.lock'), { force: true });
  }

  /**
   * Records the workspace (or only `paths`, relative: what file tools wrote) and returns its tree.
   * Throws GitError when git cannot write (a full disk, say): the index is left as it was.
   */
  snapshot(paths?: readonly string[]): Snapshot {
    if (paths && paths.length === 0 && this.lastTree) return { tree: this.lastTree, changed: [], large: this.lastLarge, skipped: [] };
    const tagged = nulSplit(this.git.run(['--literal-pathspecs', 'ls-files', '-z', '-t', '-o', '-m', '-d', '--exclude-standard', '--', ...(paths ?? [])]));
    const listed = tagged.map((line) => line.slice(2));
    const large: LargeFiles = paths ? { ...this.lastLarge } : {};
    const add: string[] = [];
    const unlarge: string[] = [];
    const skipped: Snapshot['skipped'] = [];
    const changed = new Set<string>();
    for (const rel of new Set(listed)) {
      if (rel.endsWith('/')) {
        skipped.push({ path: rel, why: 'a git repository of its own inside the workspace' });
        continue;
      }
      const st = lstat(path.join(this.root, rel));
      if (st && st.isFile() && st.size > this.maxFileBytes) {
        large[rel] = `${st.size}:${st.mtimeMs}`;
        unlarge.push(rel);
        continue;
      }
      if (st && !st.isFile() && !st.isSymbolicLink()) {
        skipped.push({ path: rel, why: 'not a file or a link' });
        continue;
      }
      if (st && st.isFile() && !readable(path.join(this.root, rel))) {
        skipped.push({ path: rel, why: 'it could not be read' });
        continue;
      }
      delete large[rel];
      add.push(rel);
      changed.add(rel);
    }
    // A recorded file or link that became a folder is listed only by what is now inside it.
    for (const rel of this.replacedByFolders(tagged)) changed.add(rel);
    // A large file stays untracked, so every walk lists it: it changed only where its signature did.
    if (!paths) for (const [rel, sig] of Object.entries(this.lastLarge)) if (large[rel] !== sig) changed.add(rel);
    for (const rel of Object.keys(large)) if (this.lastLarge[rel] !== large[rel]) changed.add(rel);
    // Until the new tree is written, the last one may no longer be the index's.
    if (unlarge.length > 0 || add.length > 0) this.lastTree = undefined;
    if (unlarge.length > 0) this.git.run(['update-index', '-z', '--force-remove', '--stdin'], nulJoin(unlarge));
    if (add.length > 0) this.git.run(['update-index', '-z', '--add', '--remove', '--replace', '--stdin'], nulJoin(add));
    const tree = this.lastTree ?? this.git.text(['write-tree']).trim();
    this.lastTree = tree;
    this.lastLarge = large;
    return { tree, changed: [...changed], large, skipped };
  }

  /** Recorded paths that are folders of new (untracked) files now: `update-index --replace` drops them. */
  private replacedByFolders(tagged: readonly string[]): string[] {
    const prefixes = new Set<string>();
    for (const line of tagged) {
      if (!line.startsWith('? ')) continue;
      const parts = line.slice(2).split('/');
      for (let i = 1; i < parts.length; i++) prefixes.add(parts.slice(0, i).join('/'));
    }
    if (prefixes.size === 0) return [];
    return nulSplit(this.git.run(['--literal-pathspecs', 'ls-files', '-z', '--', ...prefixes])).filter((p) => prefixes.has(p));
  }

  /** The entries of `paths` in a tree (absent paths are missing from the map). */
  entries(tree: string, paths: readonly string[]): Map<string, Entry> {
    const out = new Map<string, Entry>();
    for (let i = 0; i < paths.length; i += 500) {
      const chunk = paths.slice(i, i + 500);
      for (const line of nulSplit(this.git.run(['--literal-pathspecs', 'ls-tree', '-z', '--full-tree', tree, '--', ...chunk]))) {
        const tab = line.indexOf('\t');
        const [mode, type, oid] = line.slice(0, tab).split(' ');
        if (type === 'blob') out.set(line.slice(tab + 1), { mode, oid });
      }
    }
    return out;
  }

  /** Every file of a tree. */
  allEntries(tree: string): Map<string, Entry> {
    const out = new Map<string, Entry>();
    for (const line of nulSplit(this.git.run(['ls-tree', '-r', '-z', '--full-tree', tree]))) {
      const tab = line.indexOf('\t');
      const [mode, type, oid] = line.slice(0, tab).split(' ');
      if (type === 'blob') out.set(line.slice(tab + 1), { mode, oid });
    }
    return out;
  }

  /** The contents of blobs, by id. */
  blobs(oids: readonly string[]): Map<string, Buffer> {
    const out = new Map<string, Buffer>();
    const unique = [...new Set(oids)];
    if (unique.length === 0) return out;
    const buf = this.git.run(['cat-file', '--batch'], unique.join('\n') + '\n');
    let at = 0;
    for (const oid of unique) {
      const nl = buf.indexOf(10, at);
      const size = Number(buf.subarray(at, nl).toString().split(' ')[2]);
      out.set(oid, buf.subarray(nl + 1, nl + 1 + size));
      at = nl + 1 + size + 1;
    }
    return out;
  }

  /** The bytes the repository takes on disk. */
  bytes(): number {
    return folderBytes(this.dir);
  }
}

/** A file's state on disk as git would record it, or undefined when there is no file or link there. */
export function diskEntry(abs: string): (Entry & { content: Buffer }) | undefined {
  const st = lstat(abs);
  if (!st) return undefined;
  let content: Buffer;
  let mode: string;
  if (st.isSymbolicLink()) {
    content = fs.readlinkSync(abs, { encoding: 'buffer' });
    mode = '120000';
  } else if (st.isFile()) {
    content = fs.readFileSync(abs);
    mode = st.mode & 0o100 ? '100755' : '100644';
  } else {
    return undefined;
  }
  return { mode, oid: blobId(content), content };
}

/** git's blob id of some content. */
export function blobId(content: Buffer): string {
  return crypto.createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

function lstat(abs: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(abs);
  } catch {
    return undefined;
  }
}

function readable(abs: string): boolean {
  try {
    fs.closeSync(fs.openSync(abs, 'r'));
    return true;
  } catch {
    return false;
  }
}

function nulJoin(paths: readonly string[]): string {
  return paths.map((p) => `${p}\0`).join('');
}

function folderBytes(dir: string): number {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) total += folderBytes(abs);
    else if (e.isFile()) total += fs.statSync(abs).size;
  }
  return total;
}
