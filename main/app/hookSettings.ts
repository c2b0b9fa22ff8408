/**
 * The settings files a session's hooks and permission rules come from (contract.md, Hooks), all in
 * Claude Code's settings shape: the person's own (`$KEEL_HOME/settings.json`, `~/.claude/settings.json`),
 * used as they are, and a workspace's (`.keel/settings.json`, `.claude/settings.json`,
 * `.claude/settings.local.json`), each used only once the person approved that file as it is now
 * (by its content hash, in the same approvals file as `.mcp.json`: any change asks again, so a
 * cloned repository never runs a hook or loosens a rule by itself). A file Keel cannot read whole
 * is refused whole: nothing of it is used, and its problem names the file and the field.
 * The same approval covers the `allowed-tools` of the workspace's slash commands (what a command's
 * turn may run unasked, commandGrants.ts): they are part of what a workspace file's hash is taken
 * over, so a command that gains or changes one makes every workspace file ask again.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sha256 } from '../core/hash.js';
import { hasHooks, HookSettingsError, parseHooks, type HookSet, type HookSource } from '../core/hooks/settings.js';
import { allowedToolRules, parsePermissions, PermissionSettingsError, type FileRule } from '../core/permissions/claudeRules.js';
import type { Rule } from '../core/permissions/types.js';
import { McpApprovals } from '../mcp/approvals.js';
import { listCommands } from '../core/prompts/slashCommands.js';

/** A settings file is small; a larger one (or /dev/zero behind a link) is refused unread. */
const MAX_SETTINGS_BYTES = 1024 * 1024;

export interface SettingsFile {
  source: HookSource;
  file: string;
  /**
   * SHA-256 of the content ('' when there is no file, or it cannot be read); for a workspace's file,
   * of the content and of the workspace commands' `allowed-tools` (what the approval also lets run).
   */
  hash: string;
  /** The person's own files always are; a workspace's once approved as it is now. */
  approved: boolean;
  /** Why nothing of it is used: it cannot be read, is not JSON, or a hook or rule in it is malformed. */
  problem?: string;
  /** Its hooks, when it has any and could be read. */
  set?: HookSet;
  /** Its permission rules as written, each with what Keel made of it (or why it is ignored). */
  rules: FileRule[];
  /**
   * A workspace file's: the workspace commands' `allowed-tools`, which its approval also covers
   * (each written as `/name in its own turn: ENTRY`); they apply only in that command's turn.
   */
  commandRules?: FileRule[];
}

/** The workspace's settings files, in the order their hooks run: Keel's own, then Claude Code's project and local files. */
export function workspaceSettingsFiles(root: string): string[] {
  return [path.join(root, '.keel', 'settings.json'), path.join(root, '.claude', 'settings.json'), path.join(root, '.claude', 'settings.local.json')];
}

/** The person's settings files: Keel's (its data folder's), then Claude Code's in their home folder. */
export function personSettingsFiles(dataFolder: string, home = os.homedir()): string[] {
  return [path.join(dataFolder, 'settings.json'), path.join(home, '.claude', 'settings.json')];
}

/**
 * The settings files for a workspace, the person's first (that order is the order hooks run in);
 * only files with hooks, rules or problems. A workspace file that is one of the person's own (a
 * workspace at the home folder) is theirs, listed once.
 */
export function settingsFiles(dataFolder: string, root: string, home = os.homedir()): SettingsFile[] {
  const approvals = new McpApprovals(dataFolder);
  const mine = personSettingsFiles(dataFolder, home);
  const grants = workspaceGrants(root, home);
  const files = [
    ...mine.map((file) => readSettingsFile(file, 'person', home, () => true)),
    ...workspaceSettingsFiles(root).filter((file) => !mine.includes(file))
      .map((file) => readSettingsFile(file, 'workspace', home, (f, hash) => approvals.isApproved(f, hash), grants.text))
      .map((f) => (f && grants.rules.length > 0 ? { ...f, commandRules: grants.rules } : f)),
  ];
  return files.filter((f): f is SettingsFile => f !== undefined);
}

/** The files whose hooks and rules a session uses now: approved and well formed. */
const inUse = (files: SettingsFile[]) => files.filter((f) => f.approved && f.problem === undefined);

/** The hooks a session in `root` runs, read again at each event: those of the files in use. */
export function sessionHooks(dataFolder: string, home?: string): (root: string) => HookSet[] {
  return (root) => inUse(settingsFiles(dataFolder, root, home)).filter((f) => f.set).map((f) => f.set!);
}

/**
 * The rules of the settings files a session in `root` uses, read again at each call (as hooks are), so
 * an approval holds at once and a change to a file stops its rules until approved again. The person's
 * `rules` in `$KEEL_HOME/settings.json` are read by settings.ts; these join them.
 */
export function sessionRules(dataFolder: string, home?: string): (root: string) => Rule[] {
  return (root) => inUse(settingsFiles(dataFolder, root, home)).flatMap((f) => f.rules.flatMap((r) => r.rules));
}

/**
 * Approves one workspace settings file (`file`, absolute, in `root`) as it is now; throws naming what
 * is wrong. With `shown` (the hash the person was shown), a file that changed since is refused:
 * they approve what they saw. Without `file`, the one workspace file that waits is approved (and
 * several waiting is an error naming them: each is approved on its own).
 */
export function approveSettingsFile(dataFolder: string, root: string, file?: string, shown?: string, home?: string): SettingsFile {
  const workspace = settingsFiles(dataFolder, root, home).filter((f) => f.source === 'workspace');
  let target: SettingsFile | undefined;
  if (file === undefined) {
    const waiting = workspace.filter((f) => !f.approved);
    if (waiting.length > 1) throw new Error(`Several settings files wait for approval: ${waiting.map((f) => f.file).join(', ')}. Approve each by its path.`);
    target = waiting[0] ?? workspace[0];
    if (!target) throw new Error(`There are no hooks or rules to approve in ${workspaceSettingsFiles(root).join(', ')}.`);
  } else {
    if (!workspaceSettingsFiles(root).includes(file)) throw new Error(`${file} is not one of the workspace's settings files (${workspaceSettingsFiles(root).join(', ')}).`);
    target = workspace.find((f) => f.file === file);
    if (!target) throw new Error(`There are no hooks or rules to approve in ${file}.`);
  }
  if (target.problem) throw new Error(target.problem);
  if (shown !== undefined && shown !== target.hash) {
    throw new Error(`${target.file} changed since it was shown (sha ${shown.slice(0, 8)}, now ${target.hash.slice(0, 8)}); look at it again before approving.`);
  }
  new McpApprovals(dataFolder).approve(target.file, target.hash);
  return { ...target, approved: true };
}

/**
 * The workspace's commands' `allowed-tools`: as text, one line each (its file, then the entries as
 * written) in a fixed order, '' when none has any (a workspace file's approval is taken over it
 * too); and as rules, each entry named with its command, for the person to see what they approve.
 */
function workspaceGrants(root: string, home: string): { text: string; rules: FileRule[] } {
  const granting = listCommands(root, home).filter((c) => c.source !== 'personal' && (c.allowedTools?.length ?? 0) > 0);
  return {
    text: granting.map((c) => `${c.file}\0${c.allowedTools!.join('\0')}`).sort().join('\n'),
    rules: granting.flatMap((c) => allowedToolRules(c.allowedTools!, home).map((r) => ({ ...r, written: `/${c.name} in its own turn: ${r.written}` }))),
  };
}

/** One settings file's hooks and rules; undefined when it does not exist or has neither. Never echoes the file's content. */
function readSettingsFile(
  file: string, source: HookSource, home: string, isApproved: (file: string, hash: string) => boolean, grants = '',
): SettingsFile | undefined {
  const refused = (problem: string, hash = '', approved = false): SettingsFile => ({ source, file, hash, approved, problem, rules: [] });
  let raw: Buffer;
  try {
    const stat = fs.lstatSync(file);
    // A workspace's file is read only as itself: a link could point at a secret, a device or a FIFO.
    if (source === 'workspace' && !stat.isFile()) return refused(`${file} is not a regular file; Keel reads settings only from a regular file in the workspace.`);
    const real = fs.statSync(file);
    if (!real.isFile()) return refused(`${file} is not a regular file.`);
    if (real.size > MAX_SETTINGS_BYTES) return refused(`${file} is larger than ${MAX_SETTINGS_BYTES} bytes; nothing in it was loaded.`);
    raw = fs.readFileSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return refused(`Keel cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? 'error'}); nothing in it was loaded.`);
  }
  // Without command grants the hash is the file's own, so approvals given before grants existed hold.
  const hash = grants === '' ? sha256(raw) : sha256(Buffer.concat([raw, Buffer.from(`\0allowed-tools\0${grants}`)]));
  const approved = isApproved(file, hash);
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch {
    return refused(`${file} is not valid JSON; nothing in it was loaded.`, hash, approved);
  }
  try {
    const set = parseHooks(json, file, source);
    const rules = parsePermissions(json, file, home);
    if (!hasHooks(set) && rules.length === 0) return undefined;
    return { source, file, hash, approved, rules, ...(hasHooks(set) ? { set } : {}) };
  } catch (e) {
    if (e instanceof HookSettingsError || e instanceof PermissionSettingsError) return refused(e.message, hash, approved);
    throw e;
  }
}
