/**
 * Servers started the way every server README and Claude Code's docs start them: `npx -y PKG`,
 * `uvx PKG`, `bunx PKG`. In the sandbox these cannot fetch (no network, the package manager's
 * cache read-only), so Keel prepares the package first, outside the sandbox, once: the package
 * manager itself installs it into a folder of Keel's package cache (`<data folder>/mcp-packages`),
 * and the server then runs sandboxed from there, with no network. Install scripts are not run
 * (the flag and the environment), no source is built, the install gets no secret of Keel's environment, and
 * every value it is handed is checked as a package first (launchers.ts): nothing of the package runs
 * outside the sandbox. A workspace file's entry
 * is prepared only once the person approved the file (it is not runnable before).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { sha256 } from '../core/workspace/files.js';
import type { ServerConfig, Transport } from './config.js';
import { isRefused, localPackage, packageLaunch, type ManagerName, type PackageLaunch, type RefusedLaunch } from './launchers.js';

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
} as const satisfies Record<ManagerName, Manager>;

/**
 * What of Keel's environment an install gets: where programs and the person's own package-manager
 * settings are, locale, temporary folder, proxies and certificates, registry choices. No token, no key,
 * nothing else: the install runs outside the sandbox.
 */
const INSTALL_ENV = /^(PATH|HOME|USERPROFILE|APPDATA|LOCALAPPDATA|SYSTEMROOT|SystemRoot|COMSPEC|TMPDIR|TEMP|TMP|LANG|LC_[A-Z]+|XDG_(CACHE|CONFIG|DATA)_HOME|https?_proxy|HTTPS?_PROXY|no_proxy|NO_PROXY|NODE_EXTRA_CA_CERTS|SSL_CERT_(FILE|DIR)|npm_config_(registry|cache)|UV_(INDEX_URL|DEFAULT_INDEX|EXTRA_INDEX_URL|CACHE_DIR|PYTHON_INSTALL_DIR))$/;
/** Set for every install whatever the environment says: no package's script runs, no source is built. */
const INSTALL_FORCED = { npm_config_ignore_scripts: 'true', UV_NO_BUILD: '1', npm_config_update_notifier: 'false' };

/** Where the packages of a data folder are kept. */
export function packageCache(dataFolder: string): string {
  return path.join(dataFolder, 'mcp-packages');
}

/** The install Keel runs outside the sandbox for a package line: program, arguments, environment. */
export interface InstallCommand {
  tool: string;
  args: string[];
  env: Record<string, string>;
}

/** The install line for a launch into `folder`, packages given as `packages` (local files resolved). */
export function installCommand(launch: PackageLaunch, folder: string, packages: string[], from: NodeJS.ProcessEnv = process.env): InstallCommand {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(from)) if (v !== undefined && INSTALL_ENV.test(k)) env[k] = v;
  Object.assign(env, INSTALL_FORCED);
  const tool = MANAGERS[launch.manager].tool;
  if (launch.manager === 'npx') {
    return { tool, env, args: ['install', '--prefix', folder, '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', '--', ...packages] };
  }
  if (launch.manager === 'bunx') return { tool, env, args: ['add', '--ignore-scripts', ...packages] };
  Object.assign(env, { UV_TOOL_DIR: path.join(folder, 'tools'), UV_TOOL_BIN_DIR: path.join(folder, 'bin') });
  return { tool, env, args: ['tool', 'install', '--quiet', '--no-build', ...launch.installArgs, '--', packages[0]] };
}

/** What runs outside the sandbox before the server's first start, in words for the approval screen. */
export function describeFetch(launch: PackageLaunch): string {
  const c = installCommand(launch, '<keel package cache>', launch.packages, {});
  return `${launch.packages.join(' ')}, with ${c.tool}, once, before its first start; outside the sandbox, with network, Keel runs: `
    + `${[c.tool, ...c.args].join(' ')} (no install script runs, no source is built; it gets only PATH, HOME, locale, proxy and registry settings of your environment)`;
}

/** A sentence for the person: why the package is not there, and what to do. */
export class PackageError extends Error {}

export interface PrepareOptions {
  dataFolder: string;
  /** Where the server runs: a package given as a file is found from here, as its launcher would. */
  cwd: string;
  /** Each step in words, for the person (fetching, fetched). */
  onProgress?: (message: string) => void;
  env?: NodeJS.ProcessEnv;
}

/** One preparation at a time per folder in this process: two sessions opening at once fetch once. */
const preparing = new Map<string, Promise<string>>();

/**
 * The entry to run in its place: the package's program in the cache, with the entry's arguments,
 * its environment and sandbox unchanged. Entries that run no package come back as they are.
 * Throws PackageError, one sentence naming the package and what to do (or why the line is refused).
 */
export async function preparePackage(server: ServerConfig, o: PrepareOptions): Promise<Transport> {
  const t = server.transport;
  const launch = packageLaunch(t);
  if (!launch || t.type !== 'stdio') return t;
  if (isRefused(launch)) throw new PackageError(refusal(server.name, launch));
  const cwd = t.cwd ? path.resolve(o.cwd, t.cwd) : o.cwd;
  const packages = launch.packages.map((p) => localPackage(p, cwd) ?? p);
  const folder = path.join(packageCache(o.dataFolder), launch.manager, cacheKey(server, launch, packages));
  let program: string;
  const ready = readReady(folder);
  if (ready) program = ready;
  else {
    let running = preparing.get(folder);
    if (!running) {
      running = install(launch, packages, folder, server.name, o).finally(() => preparing.delete(folder));
      preparing.set(folder, running);
    }
    program = await running;
  }
  const out: Stdio = { ...t, command: program, args: launch.args };
  return out;
}

/** The sentence for a refused package line. */
export function refusal(server: string, launch: RefusedLaunch): string {
  return `MCP server ${server} is not started: ${launch.refused}. Keel hands a package line to ${MANAGERS[launch.manager].tool} outside the sandbox only when every value in it is a package; write the entry as its README does (${launch.manager} -y PACKAGE) or give a command that is installed.`;
}

/**
 * The cache folder's name: the full resolved specs (a file's content by hash), the installer's options and,
 * for a workspace's entry, its file: nothing one workspace prepares is used for another's entry.
 */
function cacheKey(server: ServerConfig, launch: PackageLaunch, packages: string[]): string {
  const contents = packages.map((p) => {
    try {
      return fs.statSync(p).isFile() ? sha256(fs.readFileSync(p)) : '';
    } catch {
      return '';
    }
  });
  const owner = server.scope === 'user' ? 'user' : server.file;
  return sha256(JSON.stringify([launch.manager, packages, contents, launch.installArgs, owner])).slice(0, 16);
}

async function install(launch: PackageLaunch, packages: string[], folder: string, server: string, o: PrepareOptions): Promise<string> {
  const manager = MANAGERS[launch.manager];
  const what = launch.packages.join(' ');
  const tool = findProgram(manager.tool, o.env ?? process.env);
  if (!tool) {
    throw new PackageError(`MCP server ${server} is started with ${launch.manager}, but ${manager.tool} is not installed here: ${manager.install} and restart the server, or give its entry a command that is installed.`);
  }
  fs.rmSync(folder, { recursive: true, force: true });
  fs.mkdirSync(folder, { recursive: true });
  o.onProgress?.(`Fetching ${what} for MCP server ${server} with ${manager.tool} (once; kept in ${folder})…`);
  const started = Date.now();
  if (launch.manager === 'bunx') fs.writeFileSync(path.join(folder, 'package.json'), '{ "name": "keel-mcp-package", "private": true }\n');
  const c = installCommand(launch, folder, packages, o.env ?? process.env);
  const result = await run(tool, c.args, folder, c.env);
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
