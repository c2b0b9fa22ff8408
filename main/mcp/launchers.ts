/**
 * The package lines server READMEs write (`npx -y PKG`, `npm exec -- PKG`, `uvx PKG`, `bunx PKG`), read by
 * each launcher's own grammar. What Keel takes from such a line is handed to a package manager that runs
 * outside the sandbox (packages.ts), so every value is data: a package is a registry name (or, for npm
 * and bun, a file or folder), never something that begins with `-`; an option Keel does not know, a URL,
 * a git source or a Python interpreter given by path is refused with the reason, never passed on.
 */
import os from 'node:os';
import path from 'node:path';
import type { Transport } from './config.js';

export type ManagerName = 'npx' | 'uvx' | 'bunx';

/** A stdio entry that runs a package through its manager: what to fetch, which program of it, and its arguments. */
export interface PackageLaunch {
  manager: ManagerName;
  /** The package specs to install (`@scope/pkg`, `pkg@1.2.3`, `pkg==1.0`, `./server.tgz`). */
  packages: string[];
  /** The program to run, when the line names it (`npx -p PKG PROGRAM`, `uvx --from PKG PROGRAM`). */
  program?: string;
  /** Options for the installer the line gives (uvx's `--with`, `--python`), each checked. */
  installArgs: string[];
  args: string[];
}

/** A package line Keel will not hand to its package manager, and why (one clause). */
export interface RefusedLaunch {
  manager: ManagerName;
  refused: string;
}

interface Grammar {
  manager: ManagerName;
  /** Options that take no value. */
  single: string[];
  /** Options that take one (as `--opt v` or `--opt=v`). */
  valued: string[];
  /** Arguments the launcher's own command starts with (`npm exec`). */
  lead: number;
}

const NODE_SINGLE = ['-y', '--yes', '-q', '--quiet'];

function grammarOf(t: Extract<Transport, { type: 'stdio' }>): Grammar | undefined {
  const command = path.basename(t.command).replace(/\.(cmd|exe)$/i, '');
  if (command === 'npx') return { manager: 'npx', single: NODE_SINGLE, valued: ['-p', '--package'], lead: 0 };
  if (command === 'npm' && (t.args[0] === 'exec' || t.args[0] === 'x')) return { manager: 'npx', single: NODE_SINGLE, valued: ['-p', '--package'], lead: 1 };
  if (command === 'bunx') return { manager: 'bunx', single: ['--bun', '-y', '--yes', '-q', '--quiet'], valued: ['-p', '--package'], lead: 0 };
  if (command === 'uvx' || (command === 'uv' && (t.args[0] === 'tool' && t.args[1] === 'run'))) {
    return { manager: 'uvx', single: ['-q', '--quiet', '--isolated'], valued: ['--from', '--with', '--python', '-p'], lead: command === 'uv' ? 2 : 0 };
  }
  return undefined;
}

/**
 * The package the entry runs; undefined when its command is no package launcher (it then runs as written,
 * in the sandbox); refused, with the reason, when the line is one Keel will not hand to a package manager.
 */
export function packageLaunch(t: Transport): PackageLaunch | RefusedLaunch | undefined {
  if (t.type !== 'stdio') return undefined;
  const g = grammarOf(t);
  if (!g) return undefined;
  const refuse = (refused: string): RefusedLaunch => ({ manager: g.manager, refused });
  const packages: string[] = [];
  const installArgs: string[] = [];
  let from: string | undefined;
  let i = g.lead;
  for (; i < t.args.length; i++) {
    const arg = t.args[i];
    if (arg === '--') { i++; break; }
    if (!arg.startsWith('-')) break;
    const eq = arg.indexOf('=');
    const key = eq > 0 ? arg.slice(0, eq) : arg;
    if (g.single.includes(arg)) continue;
    if (!g.valued.includes(key)) return refuse(`Keel does not pass ${g.manager}'s option ${key} to the package manager that fetches outside the sandbox`);
    const value = eq > 0 ? arg.slice(eq + 1) : t.args[++i];
    if (value === undefined) return refuse(`${key} is given no value`);
    const why = g.manager === 'uvx' && (key === '--python' || key === '-p') ? pythonRefusal(value) : specRefusal(g.manager, value);
    if (why) return refuse(why);
    if (g.manager === 'uvx') {
      if (key === '--from') from = value;
      else installArgs.push(key === '-p' ? '--python' : key, value);
    } else packages.push(value);
  }
  const first = t.args[i];
  if (first === undefined) return refuse('it names no package to run');
  const rest = t.args.slice(i + 1);
  if (g.manager === 'uvx') {
    const why = specRefusal('uvx', from ?? first);
    if (why) return refuse(why);
    return { manager: g.manager, packages: [from ?? first], program: from ? first : pythonName(first), installArgs, args: rest };
  }
  if (packages.length > 0) return { manager: g.manager, packages, program: first, installArgs, args: rest };
  const why = specRefusal(g.manager, first);
  if (why) return refuse(why);
  return { manager: g.manager, packages: [first], installArgs, args: rest };
}

/** Whether a package line is refused (the type guard the callers use). */
export function isRefused(l: PackageLaunch | RefusedLaunch | undefined): l is RefusedLaunch {
  return l !== undefined && 'refused' in l;
}

/** A registry package as npm names it: optional scope, a name, an optional version, range, tag or alias. */
const NPM_NAME = /^(@[a-z0-9][\w.~-]*\/)?[a-z0-9_.~][\w.~-]*(@[\w.^~<>=|* +-]*)?$/i;
/** A Python requirement: a name, optional extras, an optional version specifier. */
const PY_NAME = /^[a-z0-9][\w.-]*(\[[\w.,\s-]+\])?\s*([=<>!~]=?[\w.*+!-]+\s*(,\s*[=<>!~]=?[\w.*+!-]+\s*)*)?$/i;

/** Why a package value is not one Keel hands to the manager, or undefined when it is. */
function specRefusal(manager: ManagerName, spec: string): string | undefined {
  if (spec.startsWith('-')) return `the package "${spec}" begins with "-", which the package manager would read as an option`;
  if (manager === 'uvx') {
    return PY_NAME.test(spec) ? undefined
      : `the package "${spec}" is not a name from the Python package index (a path, URL or git source would be built, running its code outside the sandbox)`;
  }
  if (NPM_NAME.test(spec) || isLocalPath(spec)) return undefined;
  return `the package "${spec}" is not a registry name or a file (Keel does not fetch URLs or git sources for a server)`;
}

function isLocalPath(spec: string): boolean {
  return /^(\.{1,2}\/|\/|~\/|file:)/.test(spec) && !/[\n\r]/.test(spec);
}

/** uvx's `--python` takes a version (`3.12`, `cpython3.12`), never a program by path: that program would run outside the sandbox. */
function pythonRefusal(value: string): string | undefined {
  return /^((cpython|pypy|python)[-@]?)?\d+(\.\d+){0,2}$/i.test(value) ? undefined
    : `--python "${value}" is not a version (a Python given by path would run outside the sandbox)`;
}

/** A Python requirement's distribution name as its program is usually called (`mcp-server-git==1.0` → `mcp-server-git`). */
function pythonName(spec: string): string {
  return spec.split(/[=<>!~@[;\s]/)[0];
}

/** A package given as a file or folder, resolved where the launcher would resolve it (the server's folder). */
export function localPackage(spec: string, cwd: string): string | undefined {
  if (!isLocalPath(spec)) return undefined;
  const bare = spec.replace(/^file:/, '');
  return path.resolve(cwd, bare.startsWith('~/') ? path.join(os.homedir(), bare.slice(2)) : bare);
}
