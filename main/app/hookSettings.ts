/**
 * Where a session's hooks come from (contract.md, Hooks): the person's `$KEEL_HOME/settings.json`,
 * and a workspace's `.keel/settings.json`, which runs only once the person approved the file as it
 * is now (by its content hash, in the same approvals file as `.mcp.json`: any change asks again, so
 * a cloned repository never runs a hook by itself).
 */
import fs from 'node:fs';
import path from 'node:path';
import { sha256 } from '../core/hash.js';
import { hasHooks, HookSettingsError, parseHooks, type HookSet, type HookSource } from '../core/hooks/settings.js';
import { McpApprovals } from '../mcp/approvals.js';

/** A settings file is small; a larger one (or /dev/zero behind a link) is refused unread. */
const MAX_SETTINGS_BYTES = 1024 * 1024;

export interface HookFile {
  source: HookSource;
  file: string;
  /** SHA-256 of the content ('' when there is no file, or it cannot be read). */
  hash: string;
  /** The person's own file always is; a workspace's once approved as it is now. */
  approved: boolean;
  /** Why its hooks are not loaded: it cannot be read, is not JSON, or a hook in it is malformed. */
  problem?: string;
  /** Its hooks, when it has any and could be read. */
  set?: HookSet;
}

export function workspaceSettingsFile(root: string): string {
  return path.join(root, '.keel', 'settings.json');
}

/** The hook files for a workspace, person's first (that order is the order hooks run in); only files with hooks or problems. */
export function hookFiles(dataFolder: string, root: string): HookFile[] {
  const approvals = new McpApprovals(dataFolder);
  const files = [
    readHookFile(path.join(dataFolder, 'settings.json'), 'person', () => true),
    readHookFile(workspaceSettingsFile(root), 'workspace', (file, hash) => approvals.isApproved(file, hash)),
  ];
  return files.filter((f): f is HookFile => f !== undefined);
}

/** The hooks a session in `root` runs, read again at each event: those of the files that are approved and well formed. */
export function sessionHooks(dataFolder: string): (root: string) => HookSet[] {
  return (root) => hookFiles(dataFolder, root).filter((f) => f.approved && f.set).map((f) => f.set!);
}

/**
 * Approves the workspace's hooks as the file is now; throws naming what is wrong. With `shown`
 * (the hash the person was shown), a file that changed since is refused: they approve what they saw.
 */
export function approveHooks(dataFolder: string, root: string, shown?: string): HookFile {
  const file = hookFiles(dataFolder, root).find((f) => f.source === 'workspace');
  if (!file) throw new Error(`There are no hooks in ${workspaceSettingsFile(root)} to approve.`);
  if (file.problem) throw new Error(file.problem);
  if (shown !== undefined && shown !== file.hash) {
    throw new Error(`${file.file} changed since it was shown (sha ${shown.slice(0, 8)}, now ${file.hash.slice(0, 8)}); look at its hooks again before approving.`);
  }
  new McpApprovals(dataFolder).approve(file.file, file.hash);
  return { ...file, approved: true };
}

/** One settings file's hooks; undefined when it does not exist or has none. Never echoes the file's content. */
function readHookFile(file: string, source: HookSource, isApproved: (file: string, hash: string) => boolean): HookFile | undefined {
  let raw: Buffer;
  try {
    const stat = fs.lstatSync(file);
    // A workspace's file is read only as itself: a link could point at a secret, a device or a FIFO.
    if (source === 'workspace' && !stat.isFile()) return { source, file, hash: '', approved: false, problem: `${file} is not a regular file; Keel reads hooks only from a regular file in the workspace.` };
    const real = fs.statSync(file);
    if (!real.isFile()) return { source, file, hash: '', approved: false, problem: `${file} is not a regular file.` };
    if (real.size > MAX_SETTINGS_BYTES) return { source, file, hash: '', approved: false, problem: `${file} is larger than ${MAX_SETTINGS_BYTES} bytes; its hooks were not loaded.` };
    raw = fs.readFileSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return { source, file, hash: '', approved: false, problem: `Keel cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? 'error'}); its hooks were not loaded.` };
  }
  const hash = sha256(raw);
  const approved = isApproved(file, hash);
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch {
    return { source, file, hash, approved, problem: `${file} is not valid JSON; its hooks were not loaded.` };
  }
  try {
    const set = parseHooks(json, file, source);
    return hasHooks(set) ? { source, file, hash, approved, set } : undefined;
  } catch (e) {
    if (e instanceof HookSettingsError) return { source, file, hash, approved, problem: e.message };
    throw e;
  }
}
