/**
 * How the bash tool runs a command: through an injected runner (DESIGN: pass I/O in). The OS
 * sandbox (main/sandbox) is one; core holds none, only this shape and the unsandboxed fallback.
 * The bash tool keeps the process itself (spawn, merged output, limits, timeout, kill); a runner
 * only says what line bash runs and what the sandbox refused while it ran.
 */

/**
 * What a command may do; every level reads all but the denied paths and writes nothing outside the
 * workspace but its private temporary folder.
 * - `read-only`: commands judged read-only, which run without the person's approval. No writes,
 *   no network.
 * - `workspace-write`: commands `auto` mode lets through. Writes inside the workspace, never in
 *   `.git` or Keel's data folder; network only to the domains the person allowed.
 * - `git-write`: commands the person approved, or allowed by a rule. As workspace-write, and
 *   `.git` too, but never `.git/hooks` or `.git/config` (they would run code later).
 */
export type CommandAccess = 'read-only' | 'workspace-write' | 'git-write';

/** Whether commands run in an OS sandbox here, and if not, why: shown to the person as is. */
export type SandboxStatus =
  | { kind: 'sandboxed'; how: string }
  | { kind: 'none'; reason: string };

export interface PreparedCommand {
  /** The line `bash -c` runs in place of the command: the command itself when nothing wraps it. */
  line: string;
  /** The process's environment (undefined: Keel's own, as `commandEnv` leaves it). */
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
    prepare: async (command) => ({ line: command, finish: async () => [] }),
  };
}

/**
 * Keel's environment for a command, without the variables that hold credentials by their names
 * (`GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`, `SSH_AUTH_SOCK`…): a command has no use for them
 * that the person did not set up elsewhere, and `env` would print them into the transcript.
 */
export function commandEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !CREDENTIAL_NAME.test(name)));
}
const CREDENTIAL_NAME = /TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|AUTH/i;

/** What a session without an injected runner uses. */
export const NO_RUNNER = unsandboxedRunner('no sandbox was given to this session');

/** The status in plain words, as the status bar, Settings and the CLI show it. */
export function describeSandbox(status: SandboxStatus): string {
  return status.kind === 'sandboxed'
    ? `Commands run in a ${status.how} sandbox.`
    : `No sandbox for commands: ${status.reason}. Every command that is not read-only asks, in every mode.`;
}
