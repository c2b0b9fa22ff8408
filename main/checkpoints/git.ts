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

  /** Runs git; its stdout. A failure throws GitError with git's own words. */
  run(args: readonly string[], input?: string | Buffer): Buffer {
    const t0 = performance.now();
    try {
      return execFileSync(this.binary, ['--git-dir', this.gitDir, '--work-tree', this.workTree, ...args], {
        cwd: this.workTree, env: this.env, input, maxBuffer: 1 << 30, stdio: ['pipe', 'pipe', 'pipe'],
      });
    } catch (err) {
      const e = err as { stderr?: Buffer; message: string };
      const said = e.stderr?.toString().trim();
      throw new GitError(said && said !== '' ? said : e.message);
    } finally {
      if (process.env.KEEL_GIT_PROFILE) console.log(`git ${args.slice(0, 4).join(' ')}: ${(performance.now() - t0).toFixed(1)} ms`);
    }
  }

  text(args: readonly string[], input?: string | Buffer): string {
    return this.run(args, input).toString();
  }
}

export class GitError extends Error {}

/** NUL-separated output as its parts (the last, empty one dropped). */
export function nulSplit(out: Buffer | string): string[] {
  const parts = out.toString().split('\0');
  if (parts.at(-1) === '') parts.pop();
  return parts;
}
