/**
 * What git executes or follows later, in every repository of a workspace, and the check after a
 * command that could write: a sandboxed command must never leave behind anything that a plain
 * `git status` outside the sandbox (the person's shell prompt, their editor) would run.
 *
 * A git directory is found by what git itself takes for one: an entry named `.git` (a folder, or
 * a file naming one elsewhere: "gitdir: …"), or any folder holding `HEAD`, `objects/` and `refs/`
 * (a bare repository, `.git/modules/NAME`). In each, the executable paths are those whose bytes
 * name programs or other places git then reads: `config`, `config.worktree`, `commondir`,
 * `hooks/`, `info/` (attributes select filter and diff drivers), `worktrees/`, `branches/`,
 * `remotes/`, `objects/info/alternates`, and the `exec` lines of a stopped rebase or cherry-pick.
 *
 * The sandbox makes the ones that exist at launch read-only (policy.ts); what a command can still
 * make — a new repository (`git init`), a `commondir` at the top of `.git`, a rebase todo — is
 * compared after it ran with what was there before, and undone: made ones removed, changed ones
 * put back, new `exec` lines dropped from a todo. The walk does not follow links and does not go
 * into `objects/`, `refs/` or `logs/`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { namesProgram } from '../core/tools/gitConfigGuard.js';

/** The paths under a git directory whose bytes git executes or follows, relative to it. */
export const GIT_EXECUTABLE = [
  'config', 'config.worktree', 'commondir', 'hooks', 'info', 'worktrees', 'branches', 'remotes',
  'objects/info/alternates', 'objects/info/http-alternates',
] as const;
/** Todo lists that a `git rebase --continue` or `git cherry-pick --continue` later carries out. */
const TODOS = ['rebase-merge/git-rebase-todo', 'sequencer/todo'] as const;
/** A todo line that runs a program: `exec CMD`, `x CMD`. */
const EXEC_LINE = /^\s*(exec|x)(\s|$)/;
/** Where the walk stops counting entries: what lies past it is said to be unchecked. */
const MAX_ENTRIES = 200_000;
/** Not walked into: git's own stores, large and holding nothing git executes. */
const SKIP_IN_GIT = new Set(['objects', 'refs', 'logs', 'lfs']);

type Entry = { kind: 'file' | 'link'; bytes: Buffer } | { kind: 'dir' };

export interface GitSnapshot {
  root: string;
  /** Git directories found, absolute (`.git` folders, bare-looking folders, modules). */
  gitDirs: string[];
  /** `.git` entries that are files (pointers to a git directory), absolute. */
  gitFiles: string[];
  /** Every watched path and what was there (absolute path → entry). */
  watched: Map<string, Entry>;
  /** Top-level entries of each git directory, for the summary of what changed (path → mtime:size). */
  surface: Map<string, string>;
  /** Whether the walk stopped at MAX_ENTRIES. */
  cut: boolean;
  /**
   * An approved command may make the workspace's own repository (`git init` where there was none):
   * then its config stays unless a key in it names a program, and its hooks but the samples go.
   */
  ownRepoMayBeMade?: boolean;
}

function lstat(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p);
  } catch {
    return undefined;
  }
}

const isGitDir = (dir: string, names: Set<string>) =>
  names.has('HEAD') && names.has('objects') && names.has('refs') && !!lstat(path.join(dir, 'HEAD'))?.isFile()
  && !!lstat(path.join(dir, 'objects'))?.isDirectory() && !!lstat(path.join(dir, 'refs'))?.isDirectory();

/** Records `p` and, for a folder, all below it (links as links, never followed). */
function record(p: string, into: Map<string, Entry>): void {
  const st = lstat(p);
  if (!st) return;
  if (st.isSymbolicLink()) into.set(p, { kind: 'link', bytes: Buffer.from(fs.readlinkSync(p)) });
  else if (st.isDirectory()) {
    into.set(p, { kind: 'dir' });
    let names: string[] = [];
    try {
      names = fs.readdirSync(p);
    } catch {
      // unreadable: recorded as a folder, its contents unknown
    }
    for (const n of names) record(path.join(p, n), into);
  } else if (st.isFile()) {
    let bytes = Buffer.alloc(0);
    try {
      bytes = fs.readFileSync(p);
    } catch {
      // unreadable: recorded empty
    }
    into.set(p, { kind: 'file', bytes });
  } else into.set(p, { kind: 'file', bytes: Buffer.from(`special ${st.mode}`) });
}

/** Finds every git directory and `.git` file under `root`, and records their executable paths. */
export function snapshotGit(root: string, o: { ownRepoMayBeMade?: boolean } = {}): GitSnapshot {
  const snap: GitSnapshot = { root, gitDirs: [], gitFiles: [], watched: new Map(), surface: new Map(), cut: false, ...o };
  let entries = 0;
  const walk = (dir: string, inGit: boolean): void => {
    if (snap.cut) return;
    let list: fs.Dirent[];
    try {
      list = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries += list.length;
    if (entries > MAX_ENTRIES) {
      snap.cut = true;
      return;
    }
    const names = new Set(list.map((d) => d.name));
    const gitHere = isGitDir(dir, names);
    if (gitHere) addGitDir(dir);
    for (const d of list) {
      const p = path.join(dir, d.name);
      if (d.name === '.git' && d.isFile()) {
        snap.gitFiles.push(p);
        record(p, snap.watched);
      }
      if (!d.isDirectory()) continue;
      if (gitHere && (SKIP_IN_GIT.has(d.name) || GIT_EXECUTABLE.includes(d.name as never))) continue;
      walk(p, inGit || gitHere);
    }
  };
  const addGitDir = (dir: string): void => {
    snap.gitDirs.push(dir);
    for (const rel of [...GIT_EXECUTABLE, ...TODOS]) record(path.join(dir, rel), snap.watched);
    for (const name of fs.readdirSync(dir)) {
      const st = lstat(path.join(dir, name));
      if (st) snap.surface.set(path.join(dir, name), `${st.mtimeMs}:${st.size}`);
    }
  };
  walk(root, false);
  return snap;
}

const isTodo = (p: string) => TODOS.some((t) => p.endsWith(`/${t}`));
const same = (a: Entry | undefined, b: Entry | undefined) =>
  a?.kind === b?.kind && (a?.kind === 'dir' || (a as { bytes: Buffer }).bytes.equals((b as { bytes: Buffer }).bytes));

/** Puts `e` back at `p`, whatever is there now (a link is replaced, never followed). */
function restore(p: string, e: Entry): void {
  const st = lstat(p);
  if (st && (e.kind !== 'dir' || !st.isDirectory())) fs.rmSync(p, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(p), { recursive: true });
  if (e.kind === 'dir') fs.mkdirSync(p, { recursive: true });
  else if (e.kind === 'link') fs.symlinkSync(e.bytes.toString(), p);
  else fs.writeFileSync(p, e.bytes, { flag: 'wx' });
}

/** Whether `p`, made by the command in the workspace's own new repository, is what `git init` makes and runs nothing. */
function harmlessInNewRepo(snap: GitSnapshot, p: string, e: Entry): boolean {
  const own = path.join(snap.root, '.git');
  if (!snap.ownRepoMayBeMade || snap.gitDirs.includes(own) || !p.startsWith(`${own}/`)) return false;
  const rel = path.relative(own, p);
  if (rel === 'hooks' || rel === 'info' || rel === 'info/exclude') return true;
  if (rel.startsWith('hooks/')) return e.kind === 'file' && rel.endsWith('.sample');
  if (rel !== 'config' || e.kind !== 'file') return false;
  try {
    const keys = execFileSync('git', ['config', '--file', p, '--list', '--name-only'], { encoding: 'utf8', timeout: 5_000, stdio: ['ignore', 'pipe', 'ignore'] });
    return !keys.split('\n').some((k) => k !== '' && (namesProgram(k) || /^include(if)?\./i.test(k)));
  } catch {
    return false;
  }
}

/** The lines of `now` that run a program and are not lines of `before`. */
function newExecLines(now: Buffer, before: Buffer | undefined): string[] {
  const old = new Set((before?.toString() ?? '').split('\n'));
  return now.toString().split('\n').filter((l) => EXEC_LINE.test(l) && !old.has(l));
}

/**
 * Compares the workspace's git directories with `before`, undoes what a command made or changed
 * among their executable paths, and says what it did, one line each (paths relative to the root).
 * Also names the other top-level entries of a git directory the command changed (HEAD, index…),
 * so an approved command's effect on `.git` is shown.
 */
export function undoGitChanges(before: GitSnapshot): string[] {
  const after = snapshotGit(before.root);
  const rel = (p: string) => path.relative(before.root, p) || '.';
  const lines: string[] = [];
  const undone = new Set<string>();
  // Made or changed: deepest first, so a folder is removed after what it held.
  const paths = [...after.watched.keys()].sort((a, b) => b.length - a.length);
  for (const p of paths) {
    const now = after.watched.get(p)!;
    const was = before.watched.get(p);
    if (same(now, was) || [...undone].some((u) => p.startsWith(`${u}/`))) continue;
    if (isTodo(p) && now.kind === 'file' && (!was || was.kind === 'file')) {
      const added = newExecLines(now.bytes, was?.bytes);
      if (added.length === 0) continue;
      const keep = now.bytes.toString().split('\n').filter((l) => !added.includes(l)).join('\n');
      fs.writeFileSync(p, keep);
      lines.push(`dropped ${added.length} exec line(s) the command added to ${rel(p)}`);
      continue;
    }
    if (now.kind === 'dir' && was?.kind === 'dir') continue;
    if (!was && harmlessInNewRepo(before, p, now)) continue;
    if (was) {
      restore(p, was);
      lines.push(`put back ${rel(p)} as it was before the command`);
    } else {
      fs.rmSync(p, { recursive: true, force: true });
      undone.add(p);
      lines.push(`removed ${rel(p)}, which the command made`);
    }
  }
  // Removed: put back where its git directory is still there.
  for (const [p, was] of [...before.watched].sort(([a], [b]) => a.length - b.length)) {
    if (after.watched.has(p) || isTodo(p)) continue;
    const owner = [...before.gitDirs, ...before.gitFiles.map(path.dirname)].find((g) => p.startsWith(`${g}/`));
    if (!owner || !lstat(owner)?.isDirectory()) continue;
    restore(p, was);
    lines.push(`put back ${rel(p)}, which the command removed`);
  }
  const changed = new Map<string, string[]>();
  for (const [p, stamp] of after.surface) {
    if (before.surface.get(p) === stamp || after.watched.has(p)) continue;
    const dir = path.dirname(p);
    changed.set(dir, [...(changed.get(dir) ?? []), path.basename(p)]);
  }
  const summary = [...changed].map(([dir, names]) => `the command changed ${names.sort().join(', ')} in ${rel(dir)}`);
  if (after.cut) summary.push(`the check stopped after ${MAX_ENTRIES} entries: git folders past them were not looked at`);
  return [...lines, ...summary];
}
