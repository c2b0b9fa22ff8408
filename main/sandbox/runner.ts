/**
 * The command runner: every bash command, and every MCP server Keel starts, runs inside the OS
 * sandbox of @anthropic-ai/sandbox-runtime (bubblewrap on Linux, sandbox-exec on macOS; the
 * network only through its filtering proxy). It needs `bubblewrap`, `socat` and `ripgrep` on
 * Linux. Where no sandbox can run (Windows, a Linux without them or without user namespaces),
 * `status()` says why, commands run as given, and the gate asks before every command that is not
 * judged read-only.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SandboxManager, type SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import { parseLine, reachesNetwork } from '../core/permissions/command.js';
import { deniedReads } from '../core/permissions/secrets.js';
import { bridgePids, watchBridges } from './bridgeWatch.js';
import {
  CLOSE_INHERITED_FDS, commandEnv, type CommandAccess, type CommandRunner, type PreparedCommand, type SandboxStatus,
} from '../core/tools/commandRunner.js';
import { neutralGitEnv } from '../core/tools/gitConfigGuard.js';
import { findSandboxPrograms } from './detect.js';
import { snapshotGit, undoGitChanges, type GitSnapshot } from './gitGuard.js';
import { commandConfig, MAX_PROCESSES, TMP_BYTES, writeRules, type CommandPolicy, type SandboxOptions } from './policy.js';
import { processCap } from './processCap.js';

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
 * report an installed `rg` missing. Keel looks the programs up itself on PATH (no process, no
 * timeout) and hands the library their paths; when the library still says one is missing, or the
 * probe times out, that is the machine being busy: asked again, and if it still fails the answer
 * is "none" for now but not remembered — the next `sandboxStatus()` tries afresh.
 */
const DEPENDENCY_CHECKS = 3;
const DEPENDENCY_RECHECK_MS = 500;
/** How long a "none" that came from a timeout stands before the next status call tries again. */
const RETRY_AFTER_MS = 2_000;

let started: Promise<SandboxStatus> | undefined;
/** Ends the library's bridges if this process dies without stopping them (bridgeWatch.ts). */
let watcher: ChildProcess | undefined;

/** Starts the library once per process (its proxies and the Linux refusal monitor), then checks that a command really runs. */
export function sandboxStatus(): Promise<SandboxStatus> {
  started ??= start().then((status) => {
    if (status.kind === 'none' && status.transient) setTimeout(() => void forget(status), RETRY_AFTER_MS).unref();
    return status;
  });
  return started;
}

/** Lets the next status call start over, after a "none" that a busy machine may have caused. */
async function forget(status: SandboxStatus): Promise<void> {
  const was = started;
  if (!was || (await was) !== status) return;
  started = undefined;
  watcher?.kill();
  watcher = undefined;
  await SandboxManager.reset().catch(() => undefined);
}

async function start(): Promise<SandboxStatus> {
  const none = (reason: string, transient = false): SandboxStatus => ({ kind: 'none', reason, ...(transient ? { transient } : {}) });
  if (process.platform === 'win32') return none('on Windows Keel cannot sandbox commands (the sandbox runtime needs an account set up there that Keel does not create)');
  if (!SandboxManager.isSupportedPlatform()) return none(`there is no sandbox for commands on ${process.platform}`);
  const programs = findSandboxPrograms();
  if (programs.missing.length > 0) return none(`${programs.missing.join(', ')} ${programs.missing.length > 1 ? 'are' : 'is'} not on PATH (install them: apt-get install bubblewrap socat ripgrep)`);
  const config: SandboxRuntimeConfig = { ...BASE, ...programs.config };
  let deps = SandboxManager.checkDependencies(programs.config.ripgrep);
  for (let i = 1; i < DEPENDENCY_CHECKS && deps.errors.length > 0; i++) {
    await new Promise((r) => setTimeout(r, DEPENDENCY_RECHECK_MS));
    deps = SandboxManager.checkDependencies(programs.config.ripgrep);
  }
  // Every program is there (found above): an error now is the library's lookup timing out.
  if (deps.errors.length > 0) return none(`the sandbox runtime's own check failed (${deps.errors.join('; ')}) though ${programs.found} are installed: the machine is busy; Keel tries again`, true);
  try {
    await SandboxManager.initialize(config, undefined, true);
    const sockets = [SandboxManager.getLinuxHttpSocketPath(), SandboxManager.getLinuxSocksSocketPath()].filter((s): s is string => s !== undefined);
    watcher = watchBridges(bridgePids(sockets), sockets);
  } catch (err) {
    return none(`the sandbox runtime did not start: ${(err as Error).message}`, /not (found|installed|available)/.test((err as Error).message));
  }
  const probe = await probeSandbox();
  if (probe !== undefined) return none(`a sandbox could not start here (${probe.message}); user namespaces may be turned off`, probe.timedOut);
  return { kind: 'sandboxed', how: process.platform === 'darwin' ? 'sandbox-exec' : 'bubblewrap' };
}

/** Runs `true` in a read-only sandbox: undefined when it worked, else what went wrong (and whether it was the time). */
async function probeSandbox(): Promise<{ message: string; timedOut: boolean } | undefined> {
  const root = fs.realpathSync(os.tmpdir());
  const home = os.homedir();
  let launch: Launch | undefined;
  try {
    launch = await sandboxLaunch('true', { root, access: 'read-only', deniedReads: [], dataFolders: [], home }, []);
    const line = launch.line;
    return await new Promise<{ message: string; timedOut: boolean } | undefined>((resolve) => {
      execFile('bash', ['-c', line], { cwd: root, timeout: 30_000 }, (err, stdout, stderr) => {
        resolve(err ? { message: (stderr || stdout || err.message).trim().split('\n').slice(-2).join(' '), timedOut: err.killed === true } : undefined);
      });
    });
  } catch (err) {
    return { message: (err as Error).message, timedOut: /not found in PATH/.test((err as Error).message) };
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
  /** The command's process cap's cgroup folder, where one was made. */
  cgroup?: string;
  /** The workspace's git directories before the command, where it may write (gitGuard.ts). */
  git?: GitSnapshot;
  /** Frees the temp folder, the process cap and the network grant, and lets the library remove its mount points. Once. */
  release(): void;
}

type PolicyBase = Omit<CommandPolicy, 'tmp'> & { maxProcesses?: number; tmpBytes?: number };

/** bubblewrap's `/dev` comes right after the mounts: the command's own temp file system goes there, over them. */
const DEV_ARG = ' --dev /dev ';

/**
 * Wraps a shell command line for a policy: a private temp folder (its TMPDIR, a memory file system
 * of `tmpBytes` inside the sandbox, so nothing it holds reaches the host's temp), a cap on its
 * processes (processCap.ts), no descriptor but 0–2, an unguessable id (the refusals are kept
 * under it, and `domains` are granted to it alone), and the library's wrapped line. Where the
 * command may write the workspace, its git directories are recorded first (gitGuard.ts).
 */
async function sandboxLaunch(command: string, base: PolicyBase, domains: readonly string[]): Promise<Launch> {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-cmd-')));
  const git = base.access === 'read-only' ? undefined : snapshotGit(base.root, { ownRepoMayBeMade: base.access === 'git-write' });
  const policy: CommandPolicy = { ...base, tmp, ...(git ? { git: { dirs: git.gitDirs, files: git.gitFiles } } : {}) };
  const id = randomBytes(16).toString('base64url');
  const maxProcesses = base.maxProcesses ?? MAX_PROCESSES;
  const cap = processCap(id, maxProcesses);
  let released = false;
  let wrapped = false;
  const release = () => {
    if (released) return;
    released = true;
    SandboxManager.unregisterCommandNetworkLists(id);
    if (wrapped) SandboxManager.cleanupAfterCommand();
    cap?.release();
    fs.rmSync(tmp, { recursive: true, force: true });
  };
  try {
    if (domains.length > 0) SandboxManager.registerCommandNetworkLists(id, { allowedDomains: [...domains] });
    // ulimit -u holds where the command's user is not root; the cgroup (processCap) where Keel may make one.
    const inner = `export TMPDIR=${shellQuote(tmp)}; ulimit -u ${maxProcesses} 2>/dev/null; ${command}`;
    const config = commandConfig(policy);
    // The library looks bash up in PATH in this process (scripts/patchPackages.mjs), never with a timed `which`.
    const wrappedLine = await inFolder(base.root, () =>
      SandboxManager.wrapWithSandbox(inner, 'bash', config, undefined, { commandId: id, commandText: command, ...leftOut(command, base, domains) }));
    wrapped = true;
    if (!wrappedLine.includes(DEV_ARG)) throw new Error('the sandbox runtime\'s command line has no /dev mount to put the temp folder after');
    // The home folder hidden by readRules is the library's tmpfs: read-only, so a write there fails as
    // it would have, rather than vanishing with the sandbox (what is allowed inside is mounted on its own).
    const hiddenHome = config.filesystem?.denyRead?.includes(policy.home) ? `--remount-ro ${shellQuote(policy.home)} ` : '';
    const withTmp = wrappedLine.replace(DEV_ARG, `${DEV_ARG}--size ${base.tmpBytes ?? TMP_BYTES} --tmpfs ${shellQuote(tmp)} ${hiddenHome}`);
    const line = `${CLOSE_INHERITED_FDS}${cap?.join ?? ''}${withTmp}`;
    return { line, id, policy, git, release, ...(cap ? { cgroup: cap.dir } : {}) };
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * What the library leaves out of a command's sandbox, each where the sandbox is no less strict
 * without it (options patched in: scripts/patchPackages.mjs):
 * - the way to the network proxy (a socket bound in, two socat relays started inside and waited
 *   for: about 0.1 s a command) where no domain is granted: the command's network namespace stays
 *   empty, so it reaches no host, as the proxy would have refused every one. Kept where the line
 *   names a network program (curl, npm install…: the gate's judge), so that the proxy's refusal
 *   (`deny network-outbound example.com:443`) is there to tell the model why it failed.
 * - the scan for protected names below the workspace (a ripgrep process) where the command may
 *   write only its own temp folder: what the scan finds is denied only inside writable paths, and
 *   Keel mounts a fresh file system over that folder.
 */
function leftOut(command: string, base: PolicyBase, domains: readonly string[]): { noNetwork?: true; mandatoryDenyScan?: false } {
  return {
    ...(domains.length === 0 && !reachesNetwork(parseLine(command)) ? { noNetwork: true } : {}),
    ...(base.access === 'read-only' && (base.writable ?? []).length === 0 ? { mandatoryDenyScan: false } : {}),
  };
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
  const writable = [...new Set((o.writable ?? []).flatMap((p) => [p, realOrSame(p)]))];
  const limits = { ...(o.maxProcesses ? { maxProcesses: o.maxProcesses } : {}), ...(o.tmpBytes ? { tmpBytes: o.tmpBytes } : {}) };
  return (root, access) => ({ root: realOrSame(root), access, home, deniedReads: denied, dataFolders, writable, ...limits });
}

/** After a command that could write: what it made or changed in a git directory, undone and said (gitGuard.ts). */
function gitNotes(launch: Launch): string[] {
  if (!launch.git) return [];
  try {
    return undoGitChanges(launch.git);
  } catch (err) {
    return [`the check of the workspace's git folders failed: ${(err as Error).message}`];
  }
}

/** The runner a session's bash tool uses: each command in a sandbox of the access the gate gave it. */
export function createSandboxRunner(o: SandboxOptions): CommandRunner {
  const policy = policyOf(o);
  return {
    status: sandboxStatus,
    deniedReads: policy('/', 'read-only').deniedReads,
    home: o.home ?? os.homedir(),
    async prepare(command, { root, access }): Promise<PreparedCommand> {
      if ((await sandboxStatus()).kind !== 'sandboxed') {
        // No sandbox: the repository's own config must not run programs from a read-only `git`.
        return { line: command, env: { ...commandEnv(process.env, o.env), ...neutralGitEnv(root) }, finish: async () => [] };
      }
      // The person's domains are for commands that were let through to write (approved, or auto).
      const launch = await sandboxLaunch(command, policy(root, access), access === 'read-only' ? [] : o.allowedDomains ?? []);
      let notes: string[] = [];
      return {
        line: launch.line,
        env: commandEnv(process.env, o.env),
        ...(launch.cgroup ? { cgroup: launch.cgroup } : {}),
        async finish(exit) {
          try {
            return exit.code === 0 ? [] : await refusals(launch);
          } finally {
            launch.release();
            // After the release: the library's mount points are gone by then, and nothing of the command runs on.
            notes = gitNotes(launch);
          }
        },
        notes: () => notes,
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
  // An MCP server lives the session: what it may write is checked when it ends (gitGuard.ts).
  const launch = await sandboxLaunch(line, policyOf(policy)(policy.root, policy.access), policy.allowedDomains ?? []);
  return {
    command: 'bash', args: ['-c', launch.line],
    release() {
      launch.release();
      gitNotes(launch);
    },
  };
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
  watcher?.kill();
  watcher = undefined;
  await SandboxManager.reset();
}
