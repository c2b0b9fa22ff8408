import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Git, GitError, nulSplit } from './git.js';

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
 * status.showUntrackedFiles), index v4 (paths prefix-compressed: a smaller index to read and write
 * on every record), no fsmonitor, no automatic gc, no line-ending or mode conversion.
 */
const CONFIGURE = [
  ['core.autocrlf', 'false'], ['core.symlinks', 'true'], ['core.fileMode', 'true'], ['core.quotePath', 'false'],
  ['core.safecrlf', 'false'], ['core.bigFileThreshold', '512m'], ['core.untrackedCache', 'true'],
  ['core.fsmonitor', 'false'], ['core.preloadIndex', 'true'], ['status.showUntrackedFiles', 'all'], ['status.renames', 'false'],
  ['index.version', '4'], ['gc.auto', '0'], ['maintenance.auto', 'false'], ['user.name', 'Keel'], ['user.email', 'keel@localhost'],
  ['keel.layout', '2'],
].map(([k, v]) => `"$KEEL_GIT" config ${k} ${v}`).join('\n');

/** Prints HEAD's tree and commit, first making HEAD a commit of the index where there is none. */
const RESUME = `if ! head=$("$KEEL_GIT" rev-parse -q --verify HEAD); then
  tree=$("$KEEL_GIT" write-tree); head=$("$KEEL_GIT" commit-tree "$tree" -m keel); "$KEEL_GIT" update-ref HEAD "$head"
fi
printf '%s %s\\n' "$("$KEEL_GIT" rev-parse "$head^{tree}")" "$head"`;

/**
 * The index, tree, commit and HEAD in one process. $1 walk (stdin: the paths to add, as listed) or
 * paths (the rest: the paths file tools wrote; git lists which are changed or new and not ignored);
 * $2 HEAD's commit where known; $GIT_DIR/keel-remove: paths to take out of the index. Prints
 * `TREE COMMIT` (or `-`: nothing moved) on its first line, then the paths it added, NUL-separated.
 */
const UPDATE = `set -e
mode=$1; parent=$2; shift 2
added="$GIT_DIR/keel-add"
if [ "$mode" = walk ]; then cat > "$added"
elif [ $# -gt 0 ]; then "$KEEL_GIT" ls-files -z -o -m -d --exclude-standard -- "$@" > "$added"
else : > "$added"; fi
moved=
if [ -s "$GIT_DIR/keel-remove" ]; then "$KEEL_GIT" update-index -z --force-remove --stdin < "$GIT_DIR/keel-remove"; moved=1; fi
if [ -s "$added" ]; then "$KEEL_GIT" update-index -z --add --remove --replace --stdin < "$added"; moved=1; fi
if [ -n "$moved" ]; then
  tree=$("$KEEL_GIT" write-tree)
  [ -n "$parent" ] || parent=$("$KEEL_GIT" rev-parse -q --verify HEAD) || parent=
  commit=$("$KEEL_GIT" commit-tree "$tree" \${parent:+-p "$parent"} -m keel)
  "$KEEL_GIT" update-ref HEAD "$commit"
  printf '%s %s\\n' "$tree" "$commit"
else
  printf -- '-\\n'
fi
cat "$added"`;

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
 * The shadow repository: its index is the workspace as last recorded, and HEAD a commit of that
 * index's tree (so `git status` lists only what changed since). A walk is one `git status` (git's
 * stat cache, written back; its untracked cache, so only folders whose listing changed are read);
 * only what it lists is hashed, and the index, tree, commit and HEAD move in one more process. It
 * honours the workspace's .gitignore files (git reads them from the work tree), never tracks
 * `.git`, stores links as links, and is the only thing it writes to (the git dir in Keel's data).
 */
export class ShadowRepo {
  readonly git: Git;
  private lastTree?: string;
  private head?: string;
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
  }

  /**
   * Picks up where a reopened session left off: its large files, and the tree and commit HEAD
   * holds (a kill may have come after the index moved, before HEAD or the log did: the next walk
   * lists what the index holds beyond HEAD as changed). A repository from before this layout gets
   * its settings, and a HEAD of its index.
   */
  resume(large: LargeFiles): void {
    this.lastLarge = { ...large };
    // A kill during a snapshot can leave git's lock: this session's store is the only writer.
    fs.rmSync(path.join(this.dir, 'index.lock'), { force: true });
    if (!this.exists) return;
    const configured = readText(path.join(this.dir, 'config')).includes(LAYOUT_MARK);
    const out = this.git.script('keel-resume', `set -e\n${configured ? '' : CONFIGURE}\n${RESUME}`, []).toString().trim();
    [this.lastTree, this.head] = out.split(' ');
  }

  /**
   * Records the workspace (or only `paths`, relative: what file tools wrote) and returns its tree.
   * Throws GitError when git cannot write (a full disk, say): HEAD and the log stay as they were.
   */
  snapshot(paths?: readonly string[]): Snapshot {
    if (paths && paths.length === 0 && this.lastTree) return { tree: this.lastTree, changed: [], large: this.lastLarge, skipped: [] };
    const large: LargeFiles = paths ? { ...this.lastLarge } : {};
    const add: string[] = [];
    const remove: string[] = [];
    const skipped: Snapshot['skipped'] = [];
    const changed = new Set<string>();
    const sizeUp = (rel: string, st: fs.Stats, tracked: boolean) => {
      large[rel] = `${st.size}:${st.mtimeMs}`;
      // Named, never copied: out of the index (a file that grew over the limit), untracked from then on.
      if (tracked || this.lastLarge[rel] === undefined) remove.push(rel);
    };
    let listed: string[] = [];
    if (!paths) {
      for (const { rel, tracked } of this.walk()) {
        if (rel.endsWith('/')) {
          skipped.push({ path: rel, why: 'a git repository of its own inside the workspace' });
          continue;
        }
        const st = lstat(path.join(this.root, rel));
        if (st?.isDirectory() && tracked) {
          // A recorded file or link that became a folder: out of the index (`--remove` takes it out).
          add.push(rel);
          changed.add(rel);
        } else if (st && st.isFile() && st.size > this.maxFileBytes) sizeUp(rel, st, tracked);
        else if (st && !st.isFile() && !st.isSymbolicLink()) skipped.push({ path: rel, why: 'not a file or a link' });
        else if (st && st.isFile() && !readable(path.join(this.root, rel))) skipped.push({ path: rel, why: 'it could not be read' });
        else {
          add.push(rel);
          changed.add(rel);
        }
      }
      // A large file stays untracked, so every walk lists it: it changed only where its signature did.
      for (const [rel, sig] of Object.entries(this.lastLarge)) if (large[rel] !== sig) changed.add(rel);
    } else {
      for (const rel of paths) {
        const st = lstat(path.join(this.root, rel));
        if (st && st.isFile() && st.size > this.maxFileBytes) sizeUp(rel, st, false);
        else if (st && st.isFile() && !readable(path.join(this.root, rel))) skipped.push({ path: rel, why: 'it could not be read' });
        else {
          if (large[rel] !== undefined) changed.add(rel);
          delete large[rel];
          listed.push(rel);
        }
      }
    }
    for (const rel of Object.keys(large)) if (this.lastLarge[rel] !== large[rel]) changed.add(rel);
    const moved = this.update(paths ? 'paths' : 'walk', paths ? listed : add, remove);
    if (paths) {
      // What git listed of the paths: tracked and changed, or new and not ignored.
      listed = moved.listed;
      for (const rel of listed) {
        if (rel.endsWith('/')) skipped.push({ path: rel, why: 'a git repository of its own inside the workspace' });
        else changed.add(rel);
      }
    }
    if (moved.tree) [this.lastTree, this.head] = [moved.tree, moved.commit];
    this.lastTree ??= this.git.text(['write-tree']).trim();
    this.lastLarge = large;
    return { tree: this.lastTree, changed: [...changed], large, skipped };
  }

  /** What differs from HEAD or the index: tracked paths changed or gone, and untracked ones (not ignored). */
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
      if (line.startsWith('? ')) listed.push({ rel: line.slice(2), tracked: false });
      else if (line.startsWith('1 ')) listed.push({ rel: afterFields(line, 8), tracked: true });
      else if (line.startsWith('2 ')) {
        listed.push({ rel: afterFields(line, 9), tracked: true });
        i++; // its original path (renames are not detected; listed for safety)
      } else if (line.startsWith('u ')) listed.push({ rel: afterFields(line, 10), tracked: true });
    }
    return listed;
  }

  /**
   * One process: `remove` out of the index, `add` into it (walk: as listed; paths: what git lists
   * of them as changed or new and not ignored), then its tree, a commit of it and HEAD. Nothing
   * moves when nothing is to be added or removed.
   */
  private update(mode: 'walk' | 'paths', add: readonly string[], remove: readonly string[]): { tree?: string; commit?: string; listed: string[] } {
    const removeFile = path.join(this.dir, 'keel-remove');
    if (remove.length > 0) fs.writeFileSync(removeFile, nulJoin(remove));
    else fs.rmSync(removeFile, { force: true });
    if (add.length === 0 && remove.length === 0) return { listed: [] };
    let out: Buffer;
    try {
      out = this.git.script('keel-update', UPDATE, [mode, this.head ?? '', ...(mode === 'paths' ? add : [])], mode === 'walk' ? nulJoin(add) : '');
    } catch (err) {
      this.removeTemporaryObjects();
      throw err;
    }
    const nl = out.indexOf(10);
    const [tree, commit] = out.subarray(0, nl).toString().split(' ');
    return { ...(tree !== '-' ? { tree, commit } : {}), listed: nulSplit(out.subarray(nl + 1)) };
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
