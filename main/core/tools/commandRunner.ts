/**
 * How the bash tool runs a command: through an injected runner (DESIGN: pass I/O in). The OS
 * sandbox (main/sandbox) is one; core holds none, only this shape and the unsandboxed fallback.
 * The bash tool keeps the process itself (spawn, merged output, limits, timeout, kill); a runner
 * only says what line bash runs and what the sandbox refused while it ran.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { neutralGitEnv } from './gitConfigGuard.js';

/**
 * What a command may do; every level reads all but the denied paths and writes nothing outside the
 * workspace but its private temporary folder.
 * - `read-only`: commands judged read-only, which run without the person's approval. No writes,
 *   no network.
 * - `workspace-write`: commands `auto` mode lets through. Writes inside the workspace, never in
 *   `.git` or Keel's data folder; network only to the domains the person allowed.
 * - `git-write`: commands the person approved, or allowed by a rule. As workspace-write, and the
 *   workspace's own `.git` too, but never what git executes or follows later (`config`, `hooks`,
 *   `commondir`, `info`, `modules`, `worktrees`…: main/sandbox/gitGuard.ts), nor another repository.
 */
export type CommandAccess = 'read-only' | 'workspace-write' | 'git-write';

/** Whether commands run in an OS sandbox here, and if not, why: shown to the person as is. */
export type SandboxStatus =
  | { kind: 'sandboxed'; how: string }
  /** `transient`: the machine was too busy to tell (a lookup timed out); the next status call tries again. */
  | { kind: 'none'; reason: string; transient?: boolean };

export interface PreparedCommand {
  /** The line `bash -c` runs in place of the command: the command itself when nothing wraps it. */
  line: string;
  /** The process's environment (undefined: Keel's own, as `commandEnv` leaves it). */
  env?: NodeJS.ProcessEnv;
  /**
   * The command's own cgroup folder, where there is one: its `cgroup.procs` lists every process
   * the command started, including one its parent left behind (no longer below the process Keel
   * started), so a stop reaches them all.
   */
  cgroup?: string;
  /**
   * Called once, after the process has ended (or failed to start): frees what `prepare` took
   * (a temporary folder, a network grant) and returns what the sandbox refused the command
   * while it ran, one line each (`deny openat /etc/x`), [] for nothing.
   */
  finish(exit: { code: number | null; signal: string | null }): Promise<string[]>;
  /**
   * After `finish`: what the runner did about the command once it had ended, one line each
   * (what it undid in a git folder, what the command changed there), shown whatever the exit.
   */
  notes?(): string[];
}

export interface CommandRunner {
  /** Decided once (the first call probes the sandbox), then the same answer; a transient "none" is asked again. */
  status(): Promise<SandboxStatus>;
  /** Absolute paths no command may read (secrets, Keel's data): the judge refuses to name them too. */
  readonly deniedReads: readonly string[];
  /** The home folder those paths are in, and `~` stands for when the judge reads a command (default: the user's). */
  readonly home?: string;
  prepare(command: string, o: { root: string; access: CommandAccess }): Promise<PreparedCommand>;
}

/**
 * No sandbox: the command line runs as given. The gate treats a session with this runner as one
 * where no sandbox can run (every command not judged read-only asks, in every mode).
 */
export function unsandboxedRunner(reason: string, deniedReads: readonly string[] = []): CommandRunner {
  return {
    status: async () => ({ kind: 'none', reason }),
    deniedReads,
    prepare: async (command, { root }) => ({ line: command, env: { ...commandEnv(process.env), ...neutralGitEnv(root) }, finish: async () => [] }),
  };
}

/**
 * Keel's environment for a command, as an allow list: PATH, HOME, who the user is, the shell, the
 * terminal, the locale and the time zone, and the names the person lists (settings.json
 * `sandbox.env`). Nothing else reaches a command: a credential has any name (`MYSQL_PWD`,
 * `DATABASE_URL=postgres://u:pw@…`), and `env` would print it into the transcript.
 */
export function commandEnv(env: NodeJS.ProcessEnv, allowed: readonly string[] = []): NodeJS.ProcessEnv {
  const extra = new Set(allowed);
  return Object.fromEntries(Object.entries(env).filter(([name]) => PASSED.has(name) || /^LC_[A-Z]+$/.test(name) || extra.has(name)));
}
const PASSED = new Set(['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'COLORTERM', 'NO_COLOR', 'LANG', 'LANGUAGE', 'TZ']);

/**
 * Shell text that closes every descriptor but 0–2 of the shell running it, before it starts the
 * command: a descriptor Keel inherited (`keel exec … 200>file`) must not reach a command.
 */
export const CLOSE_INHERITED_FDS = 'for f in /proc/$$/fd/*; do n=${f##*/}; if [ "$n" -gt 2 ] && [ -e "$f" ]; then eval "exec $n>&-"; fi; done; ';

/**
 * Two pipes cannot keep the order of writes across them (`echo a; echo b >&2; echo c` came back
 * `a c b` in 21 of 50 runs), so a command runs with stderr on the stdout pipe: a first bash
 * points fd 2 at fd 1, closes every other descriptor it inherited from Keel (fd 200 of whoever
 * started Keel must not reach a command), then execs `bash -c COMMAND` (same pid, `$0` and error
 * texts as usual).
 */
const MERGE_STDERR = `exec 2>&1; ${CLOSE_INHERITED_FDS}exec bash -c "$1"`;

/**
 * Starts a prepared command in `cwd`: stdin closed, stdout and stderr one stream in the order they
 * were written, in its own process group (so a kill of `-pid` reaches everything it started).
 */
export function spawnPrepared(prepared: PreparedCommand, cwd: string): ChildProcessByStdio<null, Readable, Readable> {
  return spawn('bash', ['-c', MERGE_STDERR, 'bash', prepared.line], {
    cwd,
    env: prepared.env ?? commandEnv(process.env),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** UTF-8 of output cut at a byte limit: a character the cut split is left out rather than shown as U+FFFD. */
export function decodeCut(raw: Buffer): string {
  return raw.subarray(0, completeLength(raw)).toString('utf8');
}

/** The length of `raw` without a UTF-8 character its end cuts in two. */
export function completeLength(raw: Buffer): number {
  let end = raw.length;
  let back = 0;
  while (back < 3 && end - back - 1 >= 0 && (raw[end - back - 1] & 0xc0) === 0x80) back++;
  const lead = raw[end - back - 1];
  if (lead !== undefined && lead >= 0xc0) {
    const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
    if (back + 1 < need) end -= back + 1;
  }
  return end;
}

/** What a session without an injected runner uses. */
export const NO_RUNNER = unsandboxedRunner('no sandbox was given to this session');

/** The status in plain words, as the status bar, Settings and the CLI show it. */
export function describeSandbox(status: SandboxStatus): string {
  return status.kind === 'sandboxed'
    ? `Commands run in a ${status.how} sandbox.`
    : `No sandbox for commands: ${status.reason}. Every command that is not read-only asks, in every mode${status.transient ? ' (Keel checks again)' : ''}.`;
}
