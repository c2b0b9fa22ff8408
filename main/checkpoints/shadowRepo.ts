import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Git, GitError, nulSplit } from './git.js';
import { setHead, writeCommit } from './objects.js';

/** A file as git records it: its mode (`100644`, `100755`, `120000` for a link) and blob id. */
export interface Entry {
  mode: string;
  oid: string;
}

/** A file over the size limit: named by its size and modification time, never copied. */
export type LargeFiles = Record<string, string>;

/** Marks a repository set up as below (an older one is set up when reopened). */
const LAYOUT_MARK = 'layout = 2';

/**
 * The repository's own settings: the untracked cache kept for `status -uall` (its flags must match
 * status.showUntrackedFiles), index v4 (paths prefix-compressed) split in two (a record rewrites
 * only the small part of what changed; a replaced shared part goes at once), no fsmonitor, no automatic gc, no line-ending or mode conversion.
 */
const CONFIGURE = [
  ['core.autocrlf', 'false'], ['core.symlinks', 'true'], ['core.fileMode', 'true'], ['core.quotePath', 'false'],
  ['core.safecrlf', 'false'], ['core.bigFileThreshold', '512m'], ['core.untrackedCache', 'true'],
  ['core.fsmonitor', 'false'], ['core.preloadIndex', 'true'], ['status.showUntrackedFiles', 'all'], ['status.renames', 'false'],
  ['index.version', '4'], ['core.splitIndex', 'true'], ['splitIndex.sharedIndexExpire', 'now'], ['gc.auto', '0'], ['maintenance.auto', 'false'], ['advice.addIgnoredFile', 'false'],
  ['user.name', 'Keel'], ['user.email', 'keel@localhost'], ['keel.layout', '2'],
].map(([k, v]) => `"$KEEL_GIT" config ${k} ${v}`).join('\n');

/** Paths on standard input, NUL-separated (a rewind's thousands of paths fit no command line). */
const FROM_STDIN = ['--pathspec-from-file=-', '--pathspec-file-nul'];

export interface Snapshot {
  /** Paths whose state differs from the previous snapshot (large files included). */
  changed: string[];
  /** Every file over the limit seen now, with its signature. */
  large: LargeFiles;
  /** Left out of the record, each with why (unreadable, a nested repository, not a file). */
  skipped: { path: string; why: string }[];
}

/**
 * The shadow repository. Its index is the workspace as last recorded: a snapshot moves it (a walk:
 * one `git status`, git's stat cache written back and its untracked cache kept, so only folders
 * whose listing changed are read; then one `update-index` of what it listed; a file tool's paths:
 * one `git add`). A tree is written only where a record needs one (a turn's start), and HEAD is a
 * commit of the last one (so `status` lists only what changed since). It honours the workspace's
 * .gitignore files (git reads them from the work tree), never tracks `.git`, stores links as
 * links, and is the only thing it writes to (the git dir in Keel's data).
 */
export class ShadowRepo {
  readonly git: Git;
  private lastTree?: string;
  private head?: string;
  /** The index moved since `lastTree` was written. */
  private moved = true;
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
    this.git.script('keel-init', `set -e\n"$KEEL_GIT" init --quiet\n${CONFIGURE}`, []);
    this.moved = true;
  }

  /**
   * Picks up where a reopened session left off: its large files, and HEAD (a kill may have come
   * after the index moved, before HEAD or the log did: the index is what the next tree is written
   * from). A repository from before this layout gets its settings.
   */
  resume(large: LargeFiles): void {
    this.lastLarge = { ...large };
    // A kill during a snapshot can leave git's lock: this session's store is the only writer.
    fs.rmSync(path.join(this.dir, 'index.lock'), { force: true });
    if (!this.exists) return;
    if (!readText(path.join(this.dir, 'config')).includes(LAYOUT_MARK)) this.git.script('keel-configure', `set -e\n${CONFIGURE}`, []);
    try {
      this.head = this.git.text(['rev-parse', '-q', '--verify', 'HEAD']).trim();
    } catch {
      this.head = undefined; // none yet: the first tree makes one
    }
    this.lastTree = undefined;
    this.moved = true;
  }

  /**
   * Brings the index up to date with the workspace (or only with `paths`, relative: what file tools
   * wrote). Throws GitError when git cannot write (a full disk, say): the index moves whole or not.
   */
  snapshot(paths?: readonly string[]): Snapshot {
    if (paths && paths.length === 0) return { changed: [], large: this.lastLarge, skipped: [] };
    const large: LargeFiles = paths ? { ...this.lastLarge } : {};
    const skipped: Snapshot['skipped'] = [];
    const changed = new Set<string>();
    const add: string[] = [];
    const remove: string[] = [];
    const sizeUp = (rel: string, st: fs.Stats, tracked: boolean) => {
      large[rel] = `${st.size}:${st.mtimeMs}`;
      // Named, never copied: out of the index (a file that grew over the limit), untracked from then on.
      if (tracked || this.lastLarge[rel] === undefined) remove.push(rel);
    };
    if (!paths) {
      for (const { rel, tracked } of this.walk()) {
        if (rel.endsWith('/')) {
          skipped.push({ path: rel, why: 'a git repository of its own inside the workspace' });
          continue;
        }
        const st = lstat(path.join(this.root, rel));
        if (st?.isDirectory() && tracked) add.push(rel); // a recorded file or link that became a folder: `--remove` takes it out
        else if (st && st.isFile() && st.size > this.maxFileBytes) sizeUp(rel, st, tracked);
        else if (st && !st.isFile() && !st.isSymbolicLink()) skipped.push({ path: rel, why: 'not a file or a link' });
        else if (st && st.isFile() && !readable(path.join(this.root, rel))) skipped.push({ path: rel, why: 'it could not be read' });
        else add.push(rel);
      }
      for (const rel of add) changed.add(rel);
      // A large file stays untracked, so every walk lists it: it changed only where its signature did.
      for (const [rel, sig] of Object.entries(this.lastLarge)) if (large[rel] !== sig) changed.add(rel);
      if (remove.length > 0) this.updateIndex(['--force-remove'], remove);
      if (add.length > 0) this.updateIndex(['--add', '--remove', '--replace'], add);
    } else {
      const present: string[] = [];
      for (const rel of paths) {
        const st = lstat(path.join(this.root, rel));
        if (behindLink(this.root, rel)) skipped.push({ path: rel, why: 'it lies behind a link' });
        else if (st && st.isFile() && st.size > this.maxFileBytes) sizeUp(rel, st, true);
        else if (st && st.isFile() && !readable(path.join(this.root, rel))) skipped.push({ path: rel, why: 'it could not be read' });
        else {
          if (large[rel] !== undefined) changed.add(rel);
          delete large[rel];
          if (st) present.push(rel);
          else remove.push(rel);
        }
      }
      for (const rel of this.takeOut(remove)) changed.add(rel);
      for (const rel of this.addPaths(present)) changed.add(rel);
    }
    for (const rel of Object.keys(large)) if (this.lastLarge[rel] !== large[rel]) changed.add(rel);
    this.lastLarge = large;
    return { changed: [...changed], large, skipped };
  }

  /** The tree of the index: written where the index moved since the last one, and HEAD made a commit of it. */
  tree(): string {
    if (this.lastTree && !this.moved) return this.lastTree;
    const tree = this.git.text(['write-tree']).trim();
    if (tree !== this.lastTree || !this.head) {
      this.head = writeCommit(this.dir, tree, this.head);
      setHead(this.dir, this.head);
    }
    this.lastTree = tree;
    this.moved = false;
    return tree;
  }

  /** What differs from the index: tracked paths changed or gone, and untracked ones (not ignored). */
  private walk(): { rel: string; tracked: boolean }[] {
    const args = ['status', '--porcelain=v2', '-z', '--untracked-files=all', '--no-renames'];
    let out: Buffer;
    try {
      out = this.git.run(args);
    } catch (err) {
      // status writes its refreshed index back where it can, and a full disk makes that fatal:
      // listing without writing still tells what changed.
      if (!(err instanceof GitError)) throw err;
      out = this.git.run(['--no-optional-locks', ...args]);
    }
    const parts = nulSplit(out);
    const listed: { rel: string; tracked: boolean }[] = [];
    for (let i = 0; i < parts.length; i++) {
      const line = parts[i];
      // `1 XY ...`: X is the index against HEAD (the last tree: the record has that already), Y the work tree against the index.
      if (line.startsWith('? ')) listed.push({ rel: line.slice(2), tracked: false });
      else if (line.startsWith('1 ') && line[3] !== '.') listed.push({ rel: afterFields(line, 8), tracked: true });
      else if (line.startsWith('2 ')) {
        if (line[3] !== '.') listed.push({ rel: afterFields(line, 9), tracked: true });
        i++; // its original path (renames are not looked for; listed for safety)
      } else if (line.startsWith('u ')) listed.push({ rel: afterFields(line, 10), tracked: true });
    }
    return listed;
  }

  private updateIndex(mode: readonly string[], paths: readonly string[]): void {
    this.moved = true;
    this.guarded(() => this.git.run(['update-index', '-z', ...mode, '--stdin'], nulJoin(paths)));
  }

  /** Paths gone from the workspace (or over the limit) out of the index: those it held. */
  private takeOut(paths: readonly string[]): string[] {
    if (paths.length === 0) return [];
    this.moved = true;
    const out = this.guarded(() => this.git.text(['--literal-pathspecs', 'rm', '--cached', '--force', '--ignore-unmatch', ...FROM_STDIN], nulJoin(paths)));
    return paths.filter((p) => out.includes(`rm '${p}'\n`));
  }

  /** Files written into the index, where git does not ignore them: those that changed. */
  private addPaths(paths: readonly string[]): string[] {
    if (paths.length === 0) return [];
    this.moved = true;
    // Exit 1: some were ignored (or unreadable), the others added.
    const out = this.guarded(() => this.git.text(['--literal-pathspecs', 'add', '--verbose', '--all', '--ignore-errors', ...FROM_STDIN], nulJoin(paths), [1]));
    return paths.filter((p) => out.includes(`add '${p}'\n`) || out.includes(`remove '${p}'\n`));
  }

  private guarded<T>(f: () => T): T {
    try {
      return f();
    } catch (err) {
      this.removeTemporaryObjects();
      throw err;
    }
  }

  /** What a git that failed to write an object (a full disk) left behind: its half-written temporary files. */
  private removeTemporaryObjects(): void {
    const objects = path.join(this.dir, 'objects');
    for (const sub of readdirOrNone(objects)) {
      for (const name of readdirOrNone(path.join(objects, sub))) if (name.startsWith('tmp_obj_')) fs.rmSync(path.join(objects, sub, name), { force: true });
    }
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

/** The rest of a porcelain line after its first `n` space-separated fields: the path. */
function afterFields(line: string, n: number): string {
  let at = 0;
  for (let i = 0; i < n; i++) at = line.indexOf(' ', at) + 1;
  return line.slice(at);
}

/** Whether a folder on the way to `rel` is a link or not a folder (git refuses such a path). */
function behindLink(root: string, rel: string): boolean {
  let at = root;
  for (const part of rel.split('/').slice(0, -1)) {
    at = path.join(at, part);
    const st = lstat(at);
    if (!st) return false;
    if (!st.isDirectory()) return true;
  }
  return false;
}

function readdirOrNone(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
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
