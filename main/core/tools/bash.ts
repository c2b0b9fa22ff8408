import { spawn } from 'node:child_process';
import { contextConfig, fill, toolConfig } from '../config.js';
import { ToolError, type Tool } from './types.js';

export interface BashArgs {
  command: string;
  timeout_ms?: number;
}

/**
 * After the command itself exits, how long to wait for its output pipes to close. A background
 * process it started (`server &`) keeps them open; it is left running, and its later output is
 * not part of this result.
 */
const PIPE_GRACE_MS = 500;

/**
 * Two pipes cannot keep the order of writes across them (`echo a; echo b >&2; echo c` came back
 * `a c b` in 21 of 50 runs), so the command runs with stderr on the stdout pipe: a first bash
 * points fd 2 at fd 1, then execs `bash -c COMMAND` (same pid, `$0` and error texts as usual).
 */
const MERGE_STDERR = 'exec 2>&1; exec bash -c "$1"';

/**
 * Runs `bash -c COMMAND` in the workspace root, stdin closed, in its own process group so a
 * timeout or a cancel kills everything it started. stdout and stderr are one stream, in the order
 * they were written, captured whole (hygiene caps later), decoded as UTF-8; one trailing newline
 * is removed. A non-zero exit, a timeout or a signal adds its line (loop.json context.texts).
 */
export const bashTool: Tool<BashArgs> = {
  name: 'bash',
  parameters: {
    type: 'object',
    properties: {
      command: { type: 'string', description: 'The command line, run with bash -c in the workspace root.' },
      timeout_ms: {
        type: 'integer',
        minimum: 1,
        description: `Milliseconds before the command is killed (default ${toolConfig.bash.default_timeout_ms}, at most ${toolConfig.bash.max_timeout_ms}).`,
      },
    },
    required: ['command'],
  },
  async run(args, ctx) {
    if (typeof args.command !== 'string') throw new ToolError('Error: the command is missing.');
    const requested = args.timeout_ms ?? toolConfig.bash.default_timeout_ms;
    if (!(requested >= 1)) throw new ToolError(`Error: timeout_ms must be at least 1 (it was ${String(args.timeout_ms)}).`);
    const timeoutMs = Math.min(requested, toolConfig.bash.max_timeout_ms);
    if (ctx.signal?.aborted) throw new ToolError('Error: the command was cancelled before it started.');
    return { kind: 'text', body: await runCommand(args.command, ctx.root, timeoutMs, ctx.signal) };
  },
};

function runCommand(command: string, cwd: string, timeoutMs: number, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', MERGE_STDERR, 'bash', command], {
      cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    let timedOut = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;
    let grace: NodeJS.Timeout | undefined;

    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    signal?.addEventListener('abort', killGroup, { once: true });

    const finish = (): void => {
      if (settled || !exit) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      signal?.removeEventListener('abort', killGroup);
      child.stdout.destroy();
      child.stderr.destroy();
      resolve(formatResult(Buffer.concat(chunks).toString('utf8'), exit, timedOut, timeoutMs));
    };

    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', (err) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', killGroup);
      reject(new ToolError(`Error: could not run bash in ${cwd}: ${err.message}`));
    });
    child.on('exit', (code, sig) => {
      exit = { code, signal: sig };
      grace = setTimeout(finish, PIPE_GRACE_MS);
    });
    child.on('close', (code: number | null, sig: NodeJS.Signals | null) => {
      exit ??= { code, signal: sig };
      finish();
    });
  });
}

function formatResult(
  output: string,
  exit: { code: number | null; signal: NodeJS.Signals | null },
  timedOut: boolean,
  timeoutMs: number,
): string {
  const body = output.endsWith('\n') ? output.slice(0, -1) : output;
  let last: string | undefined;
  if (timedOut) last = fill(contextConfig.texts.timed_out, { ms: timeoutMs });
  else if (exit.signal) last = `[killed by ${exit.signal}]`;
  else if (exit.code !== 0 && exit.code !== null) last = fill(contextConfig.texts.exit_code, { code: exit.code });
  if (last === undefined) return body;
  return body === '' ? last : `${body}\n${last}`;
}
