import fs from 'node:fs';
import path from 'node:path';
import { behindLink, diskEntry, filesIn, inRepositoryOfItsOwn, lstat, readable, readdirOrNone, readText } from './disk.js';
import { Git, GitError, nulJoin, nulSplit } from './git.js';
import { sameEntry, TreeMirror, type Entry } from './mirror.js';
import { setHead, writeCommit, writeObject } from './objects.js';
import { watchWorkspace, type WorkspaceWatch } from './watch.js';

export type { Entry } from './mirror.js';
export { diskEntry } from './disk.js';

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

/** Past this many paths, a walk's entries are read back from git rather than hashed here. */
const READ_BACK = 1000;
/** Past this many files in a new folder, a walk of it (git's) finds what to record. */
const FOLDER_FILES = 500;

export interface Snapshot {
  /** Paths whose state differs from the previous snapshot (large files included). */
  changed: string[];
  /** Every file over the limit seen now, with its signature. */
  large: LargeFiles;
  /** Left out of the record, each with why (unreadable, a nested repository, not a file). */
  skipped: { path: string; why: string }[];
}

/** What a reopened session recorded last: a tree, then the changes logged after it, in order. */
export interface Recorded {
  tree: string;
  after: [string, Entry | undefined][];
}

/**
 * The shadow repository. What it recorded last is held in memory (a TreeMirror), so a record of a
 * few files and a turn's tree cost no git process; git's index follows the mirror (what the mirror
 * took without git reaches the index with the next git step that reads it) and is a walk's stat
 * cache. A snapshot finds what changed from the workspace watcher (watch.ts) where it can say, and
 * otherwise by a walk: one `git status` (its stat cache written back, its untracked cache kept, so
 * only folders whose listing changed are read), then one `update-index` of what it listed. Changed
 * paths (the watcher's, or those file tools wrote): a tracked file is hashed and stored here, an
 * untracked one goes to one `git add` (it honours .gitignore), a new folder to a walk of that
 * folder. HEAD is a commit of the last tree (so `status` lists only what changed since). It never
 * tracks `.git`, stores links as links, and writes only to its git dir in Keel's data.
 */
export class ShadowRepo {
  readonly git: Git;
  private lastTree?: string;
  private head?: string;
  private lastLarge: LargeFiles = {};
  private mirror = new TreeMirror();
  /** Index lines (`update-index -z --index-info`) for what the mirror took without git, by path. */
  private readonly pending = new Map<string, string>();
  private watch?: WorkspaceWatch;

  constructor(readonly dir: string, readonly root: string, private readonly maxFileBytes: number, binary?: string, private readonly watching = true) {
    this.git = new Git(dir, root, binary);
  }

  get exists(): boolean {
    return fs.existsSync(path.join(this.dir, 'HEAD'));
  }

  /** Creates the repository (its own settings only: nothing of the person's git config applies). */
  init(): void {
    fs.mkdirSync(path.dirname(this.dir), { recursive: true });
    this.git.script('keel-init', `set -e\n"$KEEL_GIT" init --quiet\n${CONFIGURE}`, []);
    this.mirror = new TreeMirror();
    this.pending.clear();
    this.startWatching();
  }

  /**
   * Picks up where a reopened session left off: its large files, HEAD, and the workspace as last
   * recorded (the log's last tree and the changes logged after it: entries the mirror took may
   * not have reached the index before a kill, so the index is brought to it). A repository from
   * before this layout gets its settings.
   */
  resume(large: LargeFiles, recorded: Recorded | undefined): void {
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
    const index = TreeMirror.parse(this.git.run(['ls-files', '-s', '-z']));
    this.mirror = index;
    if (recorded) {
      this.mirror = TreeMirror.parse(this.git.run(['ls-tree', '-r', '-z', '--full-tree', recorded.tree]));
      for (const [p, e] of recorded.after) this.mirror.set(p, e);
      const want = this.mirror.entries();
      const have = index.entries();
      for (const [p, e] of want) if (!sameEntry(have.get(p), e)) this.pending.set(p, indexLine(p, e));
      for (const p of have.keys()) if (!want.has(p)) this.pending.set(p, indexLine(p, undefined));
    }
    this.lastTree = undefined;
    this.startWatching();
  }

  /** Stops watching the workspace (a record after it walks). */
  close(): void {
    this.watch?.close();
    this.watch = undefined;
  }

  /**
   * Brings the record up to date with the workspace (or only with `paths`, relative: what file
   * tools wrote). Throws GitError when git cannot write (a full disk, say).
   */
  snapshot(paths?: readonly string[]): Snapshot {
    if (paths) return this.take(paths, false);
    const drained = this.watch?.drain();
    if (drained && 'paths' in drained) return this.take(drained.paths, true);
    const large: LargeFiles = {};
    const changed = new Set<string>();
    const skipped: Snapshot['skipped'] = [];
    this.walk(undefined, large, changed, skipped);
    if (drained?.rescan) this.watch?.rebuild(this.ignoredFolders());
    return this.done(changed, large, skipped);
  }

  /** The tree of the record, and HEAD a commit of it where it moved. */
  tree(): string {
    const tree = this.mirror.write(this.dir);
    if (tree !== this.lastTree || !this.head) {
      this.head = writeCommit(this.dir, tree, this.head);
      setHead(this.dir, this.head);
    }
    this.lastTree = tree;
    return tree;
  }

  /** A path as recorded now (undefined: no file). */
  entry(rel: string): Entry | undefined {
    return this.mirror.get(rel);
  }

  /**
   * Records changed paths: a tracked file here, untracked ones by `git add`, a folder the watcher
   * saw appear (`rel/`), or a recorded file that became a folder, by a walk of it.
   */
  private take(paths: readonly string[], watched: boolean): Snapshot {
    const large: LargeFiles = { ...this.lastLarge };
    const skipped: Snapshot['skipped'] = [];
    const changed = new Set<string>();
    const untracked: string[] = [];
    const folders: string[] = [];
    const queued = new Set(paths);
    const queue = [...queued];
    for (let i = 0; i < queue.length; i++) {
      const listed = queue[i];
      const rel = listed.endsWith('/') ? listed.slice(0, -1) : listed;
      if (rel === '' || rel.split('/').includes('.git')) continue;
      const abs = path.join(this.root, rel);
      if (behindLink(this.root, rel)) {
        skipped.push({ path: rel, why: 'it lies behind a link' });
        continue;
      }
      const st = lstat(abs);
      const had = this.mirror.get(rel);
      if (!st) {
        for (const gone of had ? [rel] : this.mirror.filesUnder(rel)) this.record(gone, undefined, changed, true);
        delete large[rel];
      } else if (st.isDirectory()) {
        if (!watched || !(listed.endsWith('/') || had)) continue;
        // A folder the watcher saw appear, or a recorded file that became one: what is in it now,
        // and what the record held under that name before (a folder put in another's place).
        if (had) this.record(rel, undefined, changed, true);
        const inside = filesIn(abs, rel, FOLDER_FILES);
        if (!inside) folders.push(rel);
        for (const p of [...(inside ?? []), ...this.mirror.filesUnder(rel)].filter((q) => !queued.has(q))) {
          queued.add(p);
          queue.push(p);
        }
      } else if (st.isFile() && st.size > this.maxFileBytes) {
        large[rel] = `${st.size}:${st.mtimeMs}`;
        // Named, never copied: out of the record (a file that grew over the limit), untracked from then on.
        if (had) this.record(rel, undefined, changed, true);
      } else if (!st.isFile() && !st.isSymbolicLink()) {
        skipped.push({ path: rel, why: 'not a file or a link' });
      } else if (st.isFile() && !readable(abs)) {
        skipped.push({ path: rel, why: 'it could not be read' });
      } else {
        delete large[rel];
        if (had) this.record(rel, diskEntry(abs), changed, true);
        else untracked.push(rel);
      }
    }
    const outside = untracked.filter((p) => !folders.some((f) => p.startsWith(`${f}/`)));
    if (outside.length > 0) this.takeUntracked(outside, changed);
    if (folders.length > 0) this.walk(folders, large, changed, skipped);
    return this.done(changed, large, skipped);
  }

  private done(changed: Set<string>, large: LargeFiles, skipped: Snapshot['skipped']): Snapshot {
    // A large file stays untracked, so every walk lists it: it changed only where its signature did.
    for (const rel of new Set([...Object.keys(large), ...Object.keys(this.lastLarge)])) if (large[rel] !== this.lastLarge[rel]) changed.add(rel);
    this.lastLarge = large;
    return { changed: [...changed], large, skipped };
  }

  /** The mirror takes a path's state (undefined: none), storing its content; `later`: the index gets it with the next git step. */
  private record(rel: string, e: (Entry & { content: Buffer }) | undefined, changed: Set<string>, later: boolean): void {
    if (sameEntry(this.mirror.get(rel), e)) return;
    // git stored it where git added it, unless the workspace's attributes made git store it converted.
    if (e) writeObject(this.dir, 'blob', e.content);
    this.mirror.set(rel, e && { mode: e.mode, oid: e.oid });
    if (later) this.pending.set(rel, indexLine(rel, e));
    changed.add(rel);
  }

  /**
   * Untracked files into the record, where git does not ignore them and they are not in a
   * repository of their own: the watcher's check-ignore says which (no process started), or `git add`.
   */
  private takeUntracked(paths: readonly string[], changed: Set<string>): void {
    const kept = paths.filter((p) => !inRepositoryOfItsOwn(this.root, p));
    const ignored = this.watch?.ignored(kept);
    if (!ignored) return this.addUntracked(paths, changed);
    kept.forEach((rel, i) => {
      if (!ignored[i]) this.record(rel, diskEntry(path.join(this.root, rel)), changed, true);
    });
  }

  private addUntracked(paths: readonly string[], changed: Set<string>): void {
    // Exit 1: some were ignored (or unreadable), the others added.
    const args = ['--literal-pathspecs', 'add', '--verbose', '--all', '--ignore-errors', ...FROM_STDIN];
    const out = this.indexed(args, nulJoin(paths), [1], paths.some((p) => this.pending.has(p))).toString();
    for (const rel of paths) if (out.includes(`add '${rel}'\n`)) this.record(rel, diskEntry(path.join(this.root, rel)), changed, false);
  }

  /**
   * A walk of the workspace, or of some folders: what git lists as changed against the index goes
   * into it (one `update-index`) and into the mirror (hashed here, or read back from git when many).
   */
  private walk(folders: readonly string[] | undefined, large: LargeFiles, changed: Set<string>, skipped: Snapshot['skipped']): void {
    if (folders) for (const rel of Object.keys(large)) if (folders.some((f) => rel.startsWith(`${f}/`))) delete large[rel];
    const add: string[] = [];
    const remove: string[] = [];
    for (const { rel, tracked } of this.list(folders)) {
      if (rel.endsWith('/')) {
        skipped.push({ path: rel, why: 'a git repository of its own inside the workspace' });
        continue;
      }
      const st = lstat(path.join(this.root, rel));
      if (st?.isDirectory() && tracked) add.push(rel); // a recorded file or link that became a folder: `--remove` takes it out
      else if (st && st.isFile() && st.size > this.maxFileBytes) {
        large[rel] = `${st.size}:${st.mtimeMs}`;
        if (tracked || this.lastLarge[rel] === undefined) remove.push(rel);
      } else if (st && !st.isFile() && !st.isSymbolicLink()) skipped.push({ path: rel, why: 'not a file or a link' });
      else if (st && st.isFile() && !readable(path.join(this.root, rel))) skipped.push({ path: rel, why: 'it could not be read' });
      else add.push(rel);
    }
    if (remove.length > 0) this.updateIndex(['--force-remove'], remove);
    if (add.length > 0) this.updateIndex(['--add', '--remove', '--replace'], add);
    for (const rel of remove) this.record(rel, undefined, changed, false);
    if (add.length <= READ_BACK) {
      for (const rel of add) this.record(rel, diskEntry(path.join(this.root, rel)), changed, false);
      return;
    }
    const before = this.mirror.entries();
    this.mirror = TreeMirror.parse(this.git.run(['ls-files', '-s', '-z']));
    const after = this.mirror.entries();
    for (const [p, e] of after) if (!sameEntry(before.get(p), e)) changed.add(p);
    for (const p of before.keys()) if (!after.has(p)) changed.add(p);
  }

  /** What differs from the index: tracked paths changed or gone, and untracked ones (not ignored). */
  private list(folders?: readonly string[]): { rel: string; tracked: boolean }[] {
    const args = ['--literal-pathspecs', 'status', '--porcelain=v2', '-z', '--untracked-files=all', '--no-renames', ...(folders ? ['--', ...folders] : [])];
    let out: Buffer;
    try {
      out = this.indexed(args);
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

  /**
   * Runs a git step on the index, the mirror's pending entries applied first where `flush` (in the
   * same process: one `sh` running both).
   */
  private indexed(args: readonly string[], input?: string, ok: readonly number[] = [], flush = this.pending.size > 0): Buffer {
    if (!flush || this.pending.size === 0) return this.guarded(() => this.git.run(args, input, ok));
    const lines = path.join(this.dir, 'keel-index-info');
    fs.writeFileSync(lines, [...this.pending.values()].join(''));
    const out = this.guarded(() => this.git.script('keel-indexed', 'set -e\n"$KEEL_GIT" update-index -z --index-info < "$1"\nshift\nexec "$KEEL_GIT" "$@"', [lines, ...args], input, ok));
    this.pending.clear();
    fs.rmSync(lines, { force: true });
    return out;
  }

  private updateIndex(mode: readonly string[], paths: readonly string[]): void {
    this.indexed(['update-index', '-z', ...mode, '--stdin'], nulJoin(paths));
  }

  private startWatching(): void {
    if (!this.watching || this.watch) return;
    // check-ignore takes paths, never pathspecs (it refuses the literal magic).
    this.watch = watchWorkspace(this.root, this.ignoredFolders(), this.git.spawnSpec([]));
  }

  /** The folders git ignores now (not watched: nothing in them is recorded). */
  private ignoredFolders(): string[] {
    const out = this.git.run(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory']);
    return nulSplit(out).filter((p) => p.endsWith('/')).map((p) => p.slice(0, -1));
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
}

/** The rest of a porcelain line after its first `n` space-separated fields: the path. */
function afterFields(line: string, n: number): string {
  let at = 0;
  for (let i = 0; i < n; i++) at = line.indexOf(' ', at) + 1;
  return line.slice(at);
}

/** An `update-index --index-info` line: the entry, or its removal. */
function indexLine(rel: string, e: Entry | undefined): string {
  return `${e ? `${e.mode} ${e.oid}` : `0 ${'0'.repeat(40)}`}\t${rel}\0`;
}

