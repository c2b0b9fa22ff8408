import { execFileSync } from 'node:child_process';

/**
 * The git binary on a shadow repository: `--git-dir` in Keel's data folder, `--work-tree` the
 * workspace. Nothing of the person's git setup takes part (no system or global config, no GIT_*
 * variables from Keel's environment), so the workspace's own `.git` is never found, read or written.
 */
export class Git {
  private readonly env: NodeJS.ProcessEnv;

  constructor(readonly gitDir: string, readonly workTree: string, readonly binary = 'git') {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) env[k] = v;
    this.env = { ...env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' };
  }

  /** Runs git; its stdout. A failure (an exit status not in `ok`) throws GitError with git's own words. */
  run(args: readonly string[], input?: string | Buffer, ok: readonly number[] = []): Buffer {
    return this.exec(this.binary, ['--git-dir', this.gitDir, '--work-tree', this.workTree, ...args], this.env, input, ok);
  }

  /** How to start this git with `args` as a process of its own (one that stays, read by another thread). */
  spawnSpec(args: readonly string[]): SpawnSpec {
    return { file: this.binary, args: ['--git-dir', this.gitDir, '--work-tree', this.workTree, ...args], env: this.env, cwd: this.workTree };
  }

  text(args: readonly string[], input?: string | Buffer, ok?: readonly number[]): string {
    return this.run(args, input, ok).toString();
  }

  /**
   * Runs a POSIX shell script whose `"$KEEL_GIT"` is this git on this repository (GIT_DIR and
   * GIT_WORK_TREE set, pathspecs literal): several git steps for one process started from Keel,
   * which costs far more to start from a large process than git does from the shell.
   */
  script(name: string, script: string, args: readonly string[], input?: string | Buffer, ok: readonly number[] = []): Buffer {
    const env = { ...this.env, GIT_DIR: this.gitDir, GIT_WORK_TREE: this.workTree, GIT_LITERAL_PATHSPECS: '1', KEEL_GIT: this.binary };
    return this.exec('sh', ['-c', script, name, ...args], env, input, ok);
  }

  private exec(file: string, args: readonly string[], env: NodeJS.ProcessEnv, input: string | Buffer | undefined, ok: readonly number[]): Buffer {
    try {
      return execFileSync(file, args, { cwd: this.workTree, env, input, maxBuffer: 1 << 30, stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (err) {
      const e = err as { status?: number | null; stdout?: Buffer; stderr?: Buffer; message: string };
      if (typeof e.status === 'number' && ok.includes(e.status) && e.stdout) return e.stdout;
      const said = e.stderr?.toString().trim();
      throw new GitError(said && said !== '' ? said : e.message);
    }
  }
}

export class GitError extends Error {}

export interface SpawnSpec {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** NUL-separated output as its parts (the last, empty one dropped). */
export function nulSplit(out: Buffer | string): string[] {
  const parts = out.toString().split('\0');
  if (parts.at(-1) === '') parts.pop();
  return parts;
}

/** Paths for git's `-z` input, each ended by NUL. */
export function nulJoin(paths: readonly string[]): string {
  return paths.map((p) => `${p}\0`).join('');
}
