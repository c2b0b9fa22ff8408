/**
 * How the bash tool runs a command: through an injected runner (DESIGN: pass I/O in). The OS
 * sandbox (main/sandbox) is one; core holds none, only this shape and the unsandboxed fallback.
 * The bash tool keeps the process itself (spawn, merged output, limits, timeout, kill); a runner
 * only says what line bash runs and what the sandbox refused while it ran.
 */

/**
 * What a command may do. `read-only`: commands that run without the person's approval; no
 * writes anywhere but a private temporary folder, no network. `workspace-write`: approved
 * commands and `auto` mode; writes inside the workspace only (never `.git/hooks`, `.git/config`
 * or Keel's data folder), network only to the domains the person allowed.
 */
export type CommandAccess = 'read-only' | 'workspace-write';

/** Whether commands run in an OS sandbox here, and if not, why: shown to the person as is. */
export type SandboxStatus =
  | { kind: 'sandboxed'; how: string }
  | { kind: 'none'; reason: string };

export interface PreparedCommand {
  /** The line `bash -c` runs in place of the command: the command itself when nothing wraps it. */
  line: string;
  /** The process's environment (undefined: Keel's own). */
  env?: NodeJS.ProcessEnv;
  /**
   * Called once, after the process has ended (or failed to start): frees what `prepare` took
   * (a temporary folder, a network grant) and returns what the sandbox refused the command
   * while it ran, one line each (`deny openat /etc/x`), [] for nothing.
   */
  finish(exit: { code: number | null; signal: string | null }): Promise<string[]>;
}

export interface CommandRunner {
  /** Decided once (the first call probes the sandbox), then the same answer. */
  status(): Promise<SandboxStatus>;
  /** Absolute paths no command may read (secrets, Keel's data): the judge refuses to name them too. */
  readonly deniedReads: readonly string[];
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
    prepare: async (command) => ({ line: command, finish: async () => [] }),
  };
}

/** What a session without an injected runner uses. */
export const NO_RUNNER = unsandboxedRunner('no sandbox was given to this session');

/** The status in plain words, as the status bar, Settings and the CLI show it. */
export function describeSandbox(status: SandboxStatus): string {
  return status.kind === 'sandboxed'
    ? `Commands run in a ${status.how} sandbox.`
    : `No sandbox for commands: ${status.reason}. Every command that is not read-only asks, in every mode.`;
}
