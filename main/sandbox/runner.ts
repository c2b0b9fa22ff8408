/**
 * The command runner: every bash command, and every MCP server Keel starts, runs inside the OS
 * sandbox of @anthropic-ai/sandbox-runtime (bubblewrap on Linux, sandbox-exec on macOS; the
 * network only through its filtering proxy). It needs `bubblewrap`, `socat` and `ripgrep` on
 * Linux. Where no sandbox can run (Windows, a Linux without them or without user namespaces),
 * `status()` says why, commands run as given, and the gate asks before every command that is not
 * judged read-only.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SandboxManager, type SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import { deniedReads } from '../core/permissions/secrets.js';
import { commandEnv, type CommandAccess, type CommandRunner, type PreparedCommand, type SandboxStatus } from '../core/tools/commandRunner.js';
import { commandConfig, writeRules, type CommandPolicy, type SandboxOptions } from './policy.js';

/** The library's process-wide configuration: no domain, no write. Each command brings its own (policy.ts). */
const BASE: SandboxRuntimeConfig = {
  network: { allowedDomains: [], deniedDomains: [] },
  filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
};

/**
 * After a failed command, how long to wait for the refusals the Linux monitor is still passing
 * on (they arrive over a socket while the command runs; a few milliseconds late at most).
 */
const REFUSALS_SETTLE_MS = 30;

/**
 * The library looks each program up with `which` under a 1 s timeout, so on a busy machine it can
 * report an installed `rg` missing (seen here with two cores under load), and the answer holds for
 * the whole process: it is asked again before Keel concludes there is no sandbox.
 */
const DEPENDENCY_CHECKS = 3;
const DEPENDENCY_RECHECK_MS = 500;

let started: Promise<SandboxStatus> | undefined;

/** Starts the library once per process (its proxies and the Linux refusal monitor), then checks that a command really runs. */
export function sandboxStatus(): Promise<SandboxStatus> {
  started ??= start();
  return started;
}

async function start(): Promise<SandboxStatus> {
  const none = (reason: string): SandboxStatus => ({ kind: 'none', reason });
  if (process.platform === 'win32') return none('on Windows Keel cannot sandbox commands (the sandbox runtime needs an account set up there that Keel does not create)');
  if (!SandboxManager.isSupportedPlatform()) return none(`there is no sandbox for commands on ${process.platform}`);
  let deps = SandboxManager.checkDependencies();
  for (let i = 1; i < DEPENDENCY_CHECKS && deps.errors.length > 0; i++) {
    await new Promise((r) => setTimeout(r, DEPENDENCY_RECHECK_MS));
    deps = SandboxManager.checkDependencies();
  }
  if (deps.errors.length > 0) return none(`${deps.errors.join('; ')} (install them: apt-get install bubblewrap socat ripgrep)`);
  try {
    await SandboxManager.initialize(BASE, undefined, true);
  } catch (err) {
    return none(`the sandbox runtime did not start: ${(err as Error).message}`);
  }
  const probe = await probeSandbox();
  if (probe !== undefined) return none(`a sandbox could not start here (${probe}); user namespaces may be turned off`);
  return { kind: 'sandboxed', how: process.platform === 'darwin' ? 'sandbox-exec' : 'bubblewrap' };
}

/** Runs `true` in a read-only sandbox: undefined when it worked, else what went wrong. */
async function probeSandbox(): Promise<string | undefined> {
  const root = fs.realpathSync(os.tmpdir());
  const home = os.homedir();
  let launch: Launch | undefined;
  try {
    launch = await sandboxLaunch('true', { root, access: 'read-only', deniedReads: [], dataFolders: [], home }, []);
    const line = launch.line;
    return await new Promise<string | undefined>((resolve) => {
      execFile('bash', ['-c', line], { cwd: root, timeout: 30_000 }, (err, stdout, stderr) => {
        resolve(err ? (stderr || stdout || err.message).trim().split('\n').slice(-2).join(' ') : undefined);
      });
    });
  } catch (err) {
    return (err as Error).message;
  } finally {
    launch?.release();
  }
}

/**
 * The library reads the process's working directory: it protects the shell and git files it
 * finds below it, scanning there. So each wrap runs with the workspace as the working directory
 * (from `/`, one wrap took 10 s), wraps take turns, and the directory is put back after each.
 * Keel resolves every path against a session root, never the working directory.
 */
let turn: Promise<unknown> = Promise.resolve();
function inFolder<T>(folder: string, work: () => Promise<T>): Promise<T> {
  const run = turn.then(async () => {
    let before: string | undefined;
    try {
      before = process.cwd();
    } catch {
      before = undefined;
    }
    process.chdir(folder);
    try {
      return await work();
    } finally {
      process.chdir(before ?? os.homedir());
    }
  });
  turn = run.catch(() => undefined);
  return run;
}

interface Launch {
  /** The shell line that runs the command in the sandbox. */
  line: string;
  id: string;
  policy: CommandPolicy;
  /** Frees the temp folder and the network grant, and lets the library remove its mount points. Once. */
  release(): void;
}

type PolicyBase = Omit<CommandPolicy, 'tmp'>;

/**
 * Wraps a shell command line for a policy: a private temp folder (its TMPDIR), an unguessable id
 * (the refusals are kept under it, and `domains` are granted to it alone), and the library's
 * wrapped line.
 */
async function sandboxLaunch(command: string, base: PolicyBase, domains: readonly string[]): Promise<Launch> {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-cmd-')));
  const policy: CommandPolicy = { ...base, tmp };
  const id = randomBytes(16).toString('base64url');
  let released = false;
  let wrapped = false;
  const release = () => {
    if (released) return;
    released = true;
    SandboxManager.unregisterCommandNetworkLists(id);
    if (wrapped) SandboxManager.cleanupAfterCommand();
    fs.rmSync(tmp, { recursive: true, force: true });
  };
  try {
    if (domains.length > 0) SandboxManager.registerCommandNetworkLists(id, { allowedDomains: [...domains] });
    const inner = `export TMPDIR=${shellQuote(tmp)}; ${command}`;
    const line = await inFolder(base.root, () =>
      SandboxManager.wrapWithSandbox(inner, 'bash', commandConfig(policy), undefined, { commandId: id, commandText: command }));
    wrapped = true;
    return { line, id, policy, release };
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * What the sandbox refused a command, one line each. The Linux monitor judges writes by the
 * process-wide rules (which allow none), so each write it reports is judged again by this
 * command's own rules; network refusals come from the proxy and stand as they are.
 */
async function refusals(launch: Launch): Promise<string[]> {
  await new Promise((r) => setTimeout(r, REFUSALS_SETTLE_MS));
  const { allow, deny } = writeRules(launch.policy);
  return SandboxManager.getSandboxViolationStore().getViolationsForCommand(launch.id).map((v) => v.line).filter((line) => {
    const write = /^deny \S+ (\/.*)$/.exec(line);
    if (!write) return true;
    return deny.some((d) => within(write[1], d)) || !allow.some((a) => within(write[1], a));
  });
}

const within = (p: string, folder: string) => p === folder || p.startsWith(folder.endsWith('/') ? folder : `${folder}/`);
const shellQuote = (s: string) => `'${s.replace(/'/g, `'"'"'`)}'`;

function realOrSame(p: string): string {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return p;
  }
}

/** The fixed part of every policy of these options: who is protected, and what no command reads. */
function policyOf(o: SandboxOptions): (root: string, access: CommandAccess) => PolicyBase {
  const home = o.home ?? os.homedir();
  const denied = deniedReads({ home, dataFolder: o.dataFolder, extra: o.denyRead, realpath: realOrSame });
  const dataFolders = [...new Set([o.dataFolder, realOrSame(o.dataFolder)])];
  const readable = [...new Set((o.readable ?? []).flatMap((p) => [p, realOrSame(p)]))];
  return (root, access) => ({ root: realOrSame(root), access, home, deniedReads: denied, dataFolders, readable });
}

/** The runner a session's bash tool uses: each command in a sandbox of the access the gate gave it. */
export function createSandboxRunner(o: SandboxOptions): CommandRunner {
  const policy = policyOf(o);
  return {
    status: sandboxStatus,
    deniedReads: policy('/', 'read-only').deniedReads,
    home: o.home ?? os.homedir(),
    async prepare(command, { root, access }): Promise<PreparedCommand> {
      if ((await sandboxStatus()).kind !== 'sandboxed') return { line: command, finish: async () => [] };
      // The person's domains are for commands that were let through to write (approved, or auto).
      const launch = await sandboxLaunch(command, policy(root, access), access === 'read-only' ? [] : o.allowedDomains ?? []);
      return {
        line: launch.line,
        env: commandEnv(process.env),
        async finish(exit) {
          try {
            return exit.code === 0 ? [] : await refusals(launch);
          } finally {
            launch.release();
          }
        },
      };
    },
  };
}

/**
 * Wraps a program launch (an MCP server over stdio, say) in the same sandbox as a command of
 * `access` in `root`: spawn `command` with `args` (no shell) instead of the program, in `root`.
 * It reads what a command may read, writes what the access allows, and reaches only the domains
 * `policy.allowedDomains` lists, whatever the access (the caller chooses them: an MCP server gets
 * its entry's, not the person's command list). Call `release()` once the program has exited: it
 * frees the temp folder and the network grant. Where no sandbox can run this throws, naming why.
 */
export async function sandboxCommand(
  program: string, args: readonly string[], policy: SandboxOptions & { root: string; access: CommandAccess },
): Promise<{ command: string; args: string[]; release(): void }> {
  const status = await sandboxStatus();
  if (status.kind !== 'sandboxed') throw new Error(`No sandbox for ${program}: ${status.reason}.`);
  const line = ['exec', program, ...args].map(shellQuote).join(' ');
  const launch = await sandboxLaunch(line, policyOf(policy)(policy.root, policy.access), policy.allowedDomains ?? []);
  return { command: 'bash', args: ['-c', launch.line], release: launch.release };
}

/**
 * Stops the library's proxies and refusal monitor, which keep a process alive: the command line
 * calls it before it exits. A later command starts them again.
 */
export async function stopSandbox(): Promise<void> {
  if (!started) return;
  const was = started;
  started = undefined;
  await was.catch(() => undefined);
  await SandboxManager.reset();
}
