/**
 * Servers started the way every server README and Claude Code's docs start them: `npx -y PKG`,
 * `uvx PKG`, `bunx PKG`. In the sandbox these cannot fetch (no network, the package manager's
 * cache read-only), so Keel prepares the package first, outside the sandbox, once: the package
 * manager itself installs it into a folder of Keel's package cache (`<data folder>/mcp-packages`),
 * and the server then runs sandboxed from there, with no network. Install scripts are not run
 * (`--ignore-scripts`): nothing of the package runs outside the sandbox. A workspace file's entry
 * is prepared only once the person approved the file (it is not runnable before).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { sha256 } from '../core/workspace/files.js';
import type { ServerConfig, Transport } from './config.js';

type Stdio = Extract<Transport, { type: 'stdio' }>;

/** How long one install may take before it is given up (a slow registry, a large package). */
const INSTALL_TIMEOUT_MS = 5 * 60_000;
const READY = 'keel-package.json';

interface Manager {
  /** The program that installs (npx's is npm). */
  tool: string;
  /** How the person installs it when it is missing. */
  install: string;
  /** Which registry, in words. */
  registry: string;
}

const MANAGERS = {
  npx: { tool: 'npm', install: 'install Node.js with npm (https://nodejs.org)', registry: 'the npm registry' },
  bunx: { tool: 'bun', install: 'install Bun (https://bun.sh)', registry: 'the npm registry' },
  uvx: { tool: 'uv', install: 'install uv (https://docs.astral.sh/uv/)', registry: 'the Python package index' },
} as const satisfies Record<string, Manager>;

export type ManagerName = keyof typeof MANAGERS;

/** A stdio entry that runs a package through its manager: what to fetch, which program of it, and its arguments. */
export interface PackageLaunch {
  manager: ManagerName;
  /** The package specs to install (`@scope/pkg`, `pkg@1.2.3`, `pkg==1.0`). */
  packages: string[];
  /** The program to run, when the line names it (`npx -p PKG PROGRAM`, `uvx --from PKG PROGRAM`). */
  program?: string;
  /** Options for the installer the line gives (uvx's `--with`, `--python`). */
  installArgs: string[];
  args: string[];
}

/** Where the packages of a data folder are kept. */
export function packageCache(dataFolder: string): string {
  return path.join(dataFolder, 'mcp-packages');
}

/**
 * The package the entry runs, or undefined when its command is not one of the three (or uses an
 * option Keel does not know: then it runs as written).
 */
export function packageLaunch(t: Transport): PackageLaunch | undefined {
  if (t.type !== 'stdio') return undefined;
  const manager = path.basename(t.command).replace(/\.(cmd|exe)$/i, '');
  if (manager !== 'npx' && manager !== 'uvx' && manager !== 'bunx') return undefined;
  const flags = manager === 'uvx' ? { single: ['-q', '--quiet', '--isolated'], valued: ['--from', '--with', '--python', '-p'] }
    : { single: ['-y', '--yes', '-q', '--quiet', '--bun'], valued: ['-p', '--package'] };
  const packages: string[] = [];
  const installArgs: string[] = [];
  let from: string | undefined;
  let i = 0;
  for (; i < t.args.length; i++) {
    const arg = t.args[i];
    if (arg === '--') { i++; break; }
    if (!arg.startsWith('-')) break;
    const [key, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    if (flags.single.includes(arg)) continue;
    if (!flags.valued.includes(key)) return undefined;
    const value = inline ?? t.args[++i];
    if (value === undefined) return undefined;
    if (manager === 'uvx') {
      if (key === '--from') from = value;
      else installArgs.push(key === '-p' ? '--python' : key, value);
    } else packages.push(value);
  }
  const first = t.args[i];
  if (first === undefined) return undefined;
  const rest = t.args.slice(i + 1);
  if (manager === 'uvx') return { manager, packages: [from ?? first], program: from ? first : pythonName(first), installArgs, args: rest };
  if (packages.length > 0) return { manager, packages, program: first, installArgs, args: rest };
  return { manager, packages: [first], installArgs, args: rest };
}

/** A sentence for the person: why the package is not there, and what to do. */
export class PackageError extends Error {}

export interface PrepareOptions {
  dataFolder: string;
  /** Each step in words, for the person (fetching, fetched). */
  onProgress?: (message: string) => void;
  env?: NodeJS.ProcessEnv;
}

/** One preparation at a time per folder in this process: two sessions opening at once fetch once. */
const preparing = new Map<string, Promise<string>>();

/**
 * The entry to run in its place: the package's program in the cache, with the entry's arguments,
 * its environment and sandbox unchanged. Entries that run no package come back as they are.
 * Throws PackageError, one sentence naming the package and what to do.
 */
export async function preparePackage(server: ServerConfig, o: PrepareOptions): Promise<Transport> {
  const t = server.transport;
  const launch = packageLaunch(t);
  if (!launch || t.type !== 'stdio') return t;
  const manager = MANAGERS[launch.manager];
  const key = sha256(JSON.stringify([launch.manager, launch.packages, launch.installArgs])).slice(0, 16);
  const folder = path.join(packageCache(o.dataFolder), launch.manager, key);
  let program: string;
  const ready = readReady(folder);
  if (ready) program = ready;
  else {
    let running = preparing.get(folder);
    if (!running) {
      running = install(launch, folder, server.name, manager, o).finally(() => preparing.delete(folder));
      preparing.set(folder, running);
    }
    program = await running;
  }
  const out: Stdio = { ...t, command: program, args: launch.args };
  return out;
}

async function install(launch: PackageLaunch, folder: string, server: string, manager: Manager, o: PrepareOptions): Promise<string> {
  const what = launch.packages.join(' ');
  const tool = findProgram(manager.tool, o.env ?? process.env);
  if (!tool) {
    throw new PackageError(`MCP server ${server} is started with ${launch.manager}, but ${manager.tool} is not installed here: ${manager.install} and restart the server, or give its entry a command that is installed.`);
  }
  fs.rmSync(folder, { recursive: true, force: true });
  fs.mkdirSync(folder, { recursive: true });
  o.onProgress?.(`Fetching ${what} for MCP server ${server} with ${manager.tool} (once; kept in ${folder})…`);
  const started = Date.now();
  const env = { ...(o.env ?? process.env) };
  let args: string[];
  const cwd = folder;
  if (launch.manager === 'npx') {
    args = ['install', '--prefix', folder, '--ignore-scripts', '--no-audit', '--no-fund', '--no-update-notifier', '--loglevel=error', ...launch.packages];
  } else if (launch.manager === 'bunx') {
    fs.writeFileSync(path.join(folder, 'package.json'), '{ "name": "keel-mcp-package", "private": true }\n');
    args = ['add', '--ignore-scripts', ...launch.packages];
  } else {
    Object.assign(env, { UV_TOOL_DIR: path.join(folder, 'tools'), UV_TOOL_BIN_DIR: path.join(folder, 'bin') });
    args = ['tool', 'install', '--quiet', ...launch.installArgs, launch.packages[0]];
  }
  const result = await run(tool, args, cwd, env);
  if (!result.ok) {
    fs.rmSync(folder, { recursive: true, force: true });
    throw new PackageError(`The package ${what} for MCP server ${server} could not be fetched: ${whyFailed(result.output, result.timedOut, manager)}.`);
  }
  let program: string;
  try {
    program = launch.manager === 'uvx' ? uvProgram(folder, launch.program!) : nodeProgram(folder, launch);
  } catch (err) {
    fs.rmSync(folder, { recursive: true, force: true });
    throw new PackageError(`The package ${what} for MCP server ${server} was fetched, but ${(err as Error).message}.`);
  }
  fs.writeFileSync(path.join(folder, READY), JSON.stringify({ packages: launch.packages, program }, null, 2) + '\n');
  o.onProgress?.(`Fetched ${what} for MCP server ${server} in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  return program;
}

function readReady(folder: string): string | undefined {
  try {
    const { program } = JSON.parse(fs.readFileSync(path.join(folder, READY), 'utf8')) as { program?: unknown };
    return typeof program === 'string' && fs.existsSync(program) ? program : undefined;
  } catch {
    return undefined;
  }
}

/** The program npm or bun linked for the package, chosen as npx chooses it. */
function nodeProgram(folder: string, launch: PackageLaunch): string {
  const binFolder = path.join(folder, 'node_modules', '.bin');
  if (launch.program !== undefined) {
    const named = path.join(binFolder, launch.program);
    if (!fs.existsSync(named)) throw new Error(`it has no program "${launch.program}"`);
    return named;
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  const [name] = Object.keys(manifest.dependencies ?? {});
  if (!name) throw new Error('npm did not record which package it installed');
  const pkg = JSON.parse(fs.readFileSync(path.join(folder, 'node_modules', name, 'package.json'), 'utf8')) as { bin?: string | Record<string, string> };
  const unscoped = name.replace(/^@[^/]+\//, '');
  const bins = typeof pkg.bin === 'string' ? [unscoped] : Object.keys(pkg.bin ?? {});
  const chosen = bins.length === 1 ? bins[0] : bins.find((b) => b === unscoped);
  if (!chosen) {
    throw new Error(bins.length === 0 ? `${name} has no program to run` : `${name} has several programs (${bins.join(', ')}): name one in the entry, as npx -y -p ${name} PROGRAM`);
  }
  return path.join(binFolder, chosen);
}

function uvProgram(folder: string, program: string): string {
  const file = path.join(folder, 'bin', program);
  if (!fs.existsSync(file)) throw new Error(`it has no program "${program}"`);
  return file;
}

/** A Python requirement's distribution name as its program is usually called (`mcp-server-git==1.0` → `mcp-server-git`). */
function pythonName(spec: string): string {
  return spec.split(/[=<>!~@[;\s]/)[0];
}

function findProgram(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

function run(program: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ ok: boolean; output: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    execFile(program, args, { cwd, env, timeout: INSTALL_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const timedOut = err !== null && (err as NodeJS.ErrnoException & { killed?: boolean }).killed === true;
      resolve({ ok: err === null, output: `${stderr}\n${stdout}`, timedOut });
    });
  });
}

/** The installer's failure in a clause, then what to do. */
function whyFailed(output: string, timedOut: boolean, manager: Manager): string {
  if (timedOut) return `${manager.tool} did not finish in ${INSTALL_TIMEOUT_MS / 60_000} minutes; try again, or install it yourself and give its entry that command`;
  const network = /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|UNABLE_TO_GET_ISSUER_CERT_LOCALLY|SELF_SIGNED_CERT_IN_CHAIN)\b/.exec(output);
  if (network) return `${manager.registry} cannot be reached (${network[1]}); check your network and ${manager.tool}'s registry setting, then restart the server`;
  if (/\bE404\b|404 Not Found|not found in the package registry|No solution found|not found in the package index/i.test(output)) {
    return `${manager.registry} has no such package; check its name in the entry`;
  }
  const code = /\bcode (E[A-Z0-9]+)\b/.exec(output)?.[1];
  const line = output.split('\n').map((l) => l.replace(/^npm (error|ERR!) /, '').trim()).find((l) => l !== '' && !/^code /.test(l)) ?? 'no message';
  return `${manager.tool} failed (${code ? `${code}: ` : ''}${line.slice(0, 200)}); fix that, then restart the server`;
}
