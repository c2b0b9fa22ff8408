/**
 * What each access level lets a command do, as @anthropic-ai/sandbox-runtime configuration
 * (one source: the runner for bash and `sandboxCommand` for MCP servers both use it).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import type { CommandAccess } from '../core/tools/commandRunner.js';
import { GIT_EXECUTABLE } from './gitGuard.js';

/** The person's side of the sandbox: settings.json `sandbox`, and where Keel keeps its data. */
export interface SandboxOptions {
  /** Keel's data folder: never read or written by a command. */
  dataFolder: string;
  /** More paths no command may read (`~/` is the home folder). */
  denyRead?: readonly string[];
  /** Domains approved commands may reach (`example.com`, `*.example.com`, `host:443`); none by default. */
  allowedDomains?: readonly string[];
  /** The home folder (default: the user's). */
  home?: string;
  /** Folders inside the data folder it may read and write: an MCP server's own data folder and package, nothing else of Keel's data. */
  writable?: readonly string[];
  /** Environment variables commands get besides PATH, HOME, the locale and TERM (commandRunner.ts `commandEnv`). */
  env?: readonly string[];
  /** Processes (and threads) one command may have at once (default MAX_PROCESSES). */
  maxProcesses?: number;
  /** Bytes a command's temp folder may hold (default TMP_BYTES). */
  tmpBytes?: number;
}

/** A build runs hundreds of processes; a fork bomb stops here. */
export const MAX_PROCESSES = 2048;
/** A command's TMPDIR is a memory file system of its own sandbox, this big at most. */
export const TMP_BYTES = 512 * 1024 * 1024;

/**
 * The library writes these without being asked (its scratch folder and two log folders in the
 * home folder); Keel denies them, so a read-only command writes nothing but its own temp folder.
 */
export function libraryWritePaths(home: string): string[] {
  return ['/tmp/claude', '/private/tmp/claude', path.join(home, '.npm', '_logs'), path.join(home, '.claude', 'debug')];
}

/**
 * Secret files by name, wherever they are listed from (the home folder's own entries, /etc,
 * /etc/ssh): keys, password files and their backups. Matched when a command starts, so a backup
 * made since (`/etc/shadow-`) is denied too.
 */
export const SECRET_NAMES: readonly RegExp[] = [
  /^\.netrc/, /^_netrc$/, /^\.pgpass$/, /^\.my\.cnf$/, /^\.git-credentials$/, /^\.docker$/, /^\.kube$/,
  /^id_/, /\.pem$/, /\.key$/, /^\.password-store$/, /^\.vault-token$/,
];
const SYSTEM_SECRET_NAMES: readonly [string, RegExp][] = [['/etc', /^g?shadow/], ['/etc', /^(master\.passwd|sudoers)/], ['/etc/ssh', /_key$/]];

export interface CommandPolicy {
  /** The workspace root, resolved. */
  root: string;
  access: CommandAccess;
  /** The command's private temporary folder (its TMPDIR), resolved. */
  tmp: string;
  /** deniedReads of the runner: absolute, spelled and resolved. */
  deniedReads: readonly string[];
  /** Keel's data folder, spelled and resolved. */
  dataFolders: readonly string[];
  home: string;
  /** SandboxOptions.writable, spelled and resolved. */
  writable?: readonly string[];
  /** The git directories and `.git` files in the workspace when the command starts (gitGuard.ts). */
  git?: { dirs: readonly string[]; files: readonly string[] };
}

function exists(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * What a command may not write in the workspace's git directories: all of each in `workspace-write`;
 * in `git-write`, the workspace's own `.git` but for what git executes or follows later (those that
 * exist, and the folders among them that do not yet: a mask on an absent file would stop git), and
 * every other repository whole. Absent files (`commondir`) are gitGuard's, after the command.
 */
function gitDenies(p: CommandPolicy): string[] {
  const own = path.join(p.root, '.git');
  const dirs = p.git?.dirs ?? [];
  const files = p.git?.files ?? [];
  if (p.access !== 'git-write') return [own, ...dirs, ...files];
  // No repository yet: an approved `git init` may make one (masks would make `.git` first); gitGuard checks it after.
  if (!dirs.includes(own)) return [...dirs, ...files];
  const mine = GIT_EXECUTABLE.map((rel) => path.join(own, rel))
    .filter((abs) => exists(abs) || ['hooks', 'info', 'worktrees', 'branches', 'remotes'].includes(path.basename(abs)));
  const others = dirs.filter((d) => d !== own && !d.startsWith(`${own}/`));
  return [...mine, path.join(own, 'modules'), ...others, ...files];
}

/** Where a command may write, and the carve-outs inside that it may not (commandRunner.ts says what each access allows). */
export function writeRules(p: CommandPolicy): { allow: string[]; deny: string[] } {
  const writable = p.writable ?? [];
  const deny = [...libraryWritePaths(p.home), ...p.dataFolders.flatMap((d) => around(d, writable))];
  if (p.access === 'read-only') return { allow: [p.tmp, ...writable], deny };
  return { allow: [p.root, p.tmp, ...writable], deny: [...deny, ...gitDenies(p)] };
}

/**
 * A folder kept from writes, but for the paths in `keep` below it: the folder itself where it holds
 * none of them, else each of its entries not on the way to one (a deny on the folder would cover them:
 * the library lays write denials over write binds).
 */
function around(folder: string, keep: readonly string[]): string[] {
  const inside = keep.filter((k) => k.startsWith(`${folder}/`));
  if (keep.includes(folder)) return [];
  if (inside.length === 0) return [folder];
  return list(folder).flatMap((name) => around(path.join(folder, name), inside));
}

function list(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** Entries of `dir` whose names match `pattern`, absolute. */
function matching(dir: string, pattern: RegExp): string[] {
  try {
    return fs.readdirSync(dir).filter((n) => pattern.test(n)).map((n) => path.join(dir, n));
  } catch {
    return [];
  }
}

/**
 * What a command may read: everything but the denied paths, the secret files by name, and — where
 * the home folder is not the workspace or inside it — in the home folder only the entries that are
 * there when the command starts: one made later (`~/.netrc` written while a `tail -F` waits for it)
 * is not in the sandbox at all.
 */
export function readRules(p: CommandPolicy): { denyRead: string[]; allowRead: string[] } {
  const denied = new Set(p.deniedReads);
  const secret = (name: string) => SECRET_NAMES.some((r) => r.test(name));
  const system = SYSTEM_SECRET_NAMES.flatMap(([dir, r]) => matching(dir, r));
  const home = p.home;
  const hideHome = home !== '/' && p.root !== home && !home.startsWith(`${p.root}/`);
  let entries: string[] = [];
  try {
    entries = fs.readdirSync(home);
  } catch {
    return { denyRead: [...denied, ...system], allowRead: [] };
  }
  const named = entries.filter(secret).map((n) => path.join(home, n));
  if (!hideHome) return { denyRead: [...denied, ...named, ...system], allowRead: [] };
  const within = (a: string, d: string) => a === d || a.startsWith(`${d}/`);
  const readable = (abs: string) => !secret(path.basename(abs)) && ![...denied].some((d) => within(abs, d));
  // An entry holding a denied path (~/.config holding ~/.config/gh) stays, less what is denied in it.
  // The folders on the way to a workspace inside the home folder are not bound whole (the library
  // binds what may be read after what may be written, and the workspace would come out read-only):
  // their other entries are, level by level, and the workspace itself is the library's write bind.
  const allowRead: string[] = [];
  const add = (dir: string, names: string[]) => {
    for (const name of names) {
      const abs = path.join(dir, name);
      if (!readable(abs) || (abs === p.root && p.access !== 'read-only')) continue;
      if (p.root.startsWith(`${abs}/`)) add(abs, list(abs));
      else allowRead.push(abs);
    }
  };
  add(home, entries);
  return { denyRead: [...denied, home, ...named, ...system], allowRead };
}

/**
 * The per-command configuration: reads as `readRules` says; writes as `writeRules` says; the
 * network is always routed through the library's filtering proxy, which allows no domain unless
 * the runner registers the person's list for an approved command.
 */
export function commandConfig(p: CommandPolicy): Partial<SandboxRuntimeConfig> {
  const { allow, deny } = writeRules(p);
  const { denyRead, allowRead } = readRules(p);
  return {
    filesystem: { denyRead, allowRead, allowWrite: allow, denyWrite: deny },
    network: { allowedDomains: [], deniedDomains: [] },
  };
}
