import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hooksConfig } from '../config.js';
import { commandEnv, type CommandRunner, type PreparedCommand } from '../tools/commandRunner.js';
import type { HookEventName } from './settings.js';

/** One hook's run, as the person is shown it: what ran, how it ended, what it printed. */
export interface HookRun {
  /** The event it ran for. */
  event: HookEventName;
  command: string;
  /** The settings file it came from. */
  file: string;
  /** The exit code; null when it was killed or never started. */
  exit: number | null;
  stdout: string;
  stderr: string;
  /** Why it did not end by itself: it timed out, printed too much, could not start. Shown to the person only. */
  problem?: string;
  ms: number;
}

export interface HookProcess {
  event: HookEventName;
  command: string;
  file: string;
  timeoutS?: number;
  /** The event, written as JSON to the hook's standard input. */
  input: object;
  root: string;
  /** What runs it: the session's command sandbox, or AS_THE_PERSON (hooks.ts decides which, by the hook's file). */
  runner: CommandRunner;
  signal?: AbortSignal;
}

/** The most of a failed hook's output an error line carries: its end, where a failure says what went wrong. */
const FAILURE_LINES = 20;

/**
 * A run that failed, in words for the person, with the end of its output; undefined for a run that
 * did what a hook does: exit 0, or a Stop hook's exit 2 (its answer: the turn goes on). For the runs
 * no call card shows (UserPromptSubmit, Stop): a call's own runs are on its card, output and all.
 */
export function hookFailure(run: HookRun): string | undefined {
  if (run.problem === undefined && (run.exit === 0 || (run.event === 'Stop' && run.exit === 2))) return undefined;
  const ending = run.problem === undefined ? `exited ${run.exit}` : `did not finish: ${run.problem}`;
  const lines = (run.stderr.trim() || run.stdout.trim()).split('\n');
  const output = lines.length > FAILURE_LINES ? ['…', ...lines.slice(-FAILURE_LINES)] : lines;
  return [`The ${run.event} hook \`${run.command}\` (${run.file}) ${ending}.`, ...output.filter((l) => l !== '')].join('\n');
}

/**
 * How the person's own hooks run (those of `$KEEL_HOME/settings.json` and `~/.claude/settings.json`):
 * as their shell would, outside the command sandbox, with their whole environment, as Claude Code
 * runs hooks. They wrote these commands themselves, and what such a hook is for needs their
 * permissions: a notifier reaches the desktop's session bus, a formatter keeps its cache in `~`, a
 * log is appended in `~`. The sandbox is for what the model or a repository asks to run.
 */
export const AS_THE_PERSON: CommandRunner = {
  status: async () => ({ kind: 'none', reason: "the person's own hooks run as their shell would" }),
  deniedReads: [],
  prepare: async (command) => ({ line: command, env: { ...process.env }, finish: async () => [] }),
};

/**
 * Runs one hook command (contract.md, Hooks): `bash -c` in the workspace root through the runner it
 * is given (a workspace's hook in the OS sandbox as an approved command, workspace-write: a formatter
 * may rewrite files, nothing may write `.git`), the event on stdin, stdout and stderr apart. It is
 * bounded: killed with everything it started past its timeout or once either stream passes
 * loop.json's hooks.max_output_bytes. Never throws: a hook that cannot start is a run with a problem.
 */
export async function runHook(p: HookProcess): Promise<HookRun> {
  const started = Date.now();
  const ended = (rest: Omit<HookRun, 'event' | 'command' | 'file' | 'ms'>): HookRun => ({ event: p.event, command: p.command, file: p.file, ...rest, ms: Date.now() - started });
  let prepared: PreparedCommand;
  try {
    prepared = await p.runner.prepare(p.command, { root: p.root, access: 'workspace-write' });
  } catch (err) {
    return ended({ exit: null, stdout: '', stderr: '', problem: `the sandbox could not prepare it: ${(err as Error).message}` });
  }
  const timeoutS = p.timeoutS ?? hooksConfig.timeout_s.value;
  const limit = hooksConfig.max_output_bytes.value;
  // The event reaches stdin from a file: Node's stdin "pipe" is a socket, and bash given a socket on
  // stdin reads ~/.bashrc first (its remote-shell rule), whose output would reach the model as the hook's.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-hook-'));
  const eventFile = path.join(dir, 'event.json');
  fs.writeFileSync(eventFile, JSON.stringify(p.input));
  const stdin = fs.openSync(eventFile, 'r');
  return new Promise<HookRun>((resolve) => {
    const env = { ...(prepared.env ?? commandEnv(process.env)), KEEL_PROJECT_DIR: p.root, CLAUDE_PROJECT_DIR: p.root };
    const child = spawn('bash', ['-c', prepared.line], { cwd: p.root, env, detached: true, stdio: [stdin, 'pipe', 'pipe'] });
    const out = { stdout: [] as Buffer[], stderr: [] as Buffer[], bytes: { stdout: 0, stderr: 0 } };
    let problem: string | undefined;
    let done = false;
    const killGroup = (why?: string): void => {
      problem ??= why;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => killGroup(`it did not finish within ${timeoutS} s and was stopped`), timeoutS * 1000);
    const onAbort = (): void => killGroup('it was stopped with the reply');
    p.signal?.addEventListener('abort', onAbort, { once: true });
    const take = (stream: 'stdout' | 'stderr') => (chunk: Buffer): void => {
      const room = limit - out.bytes[stream];
      if (room > 0) {
        out[stream].push(chunk.subarray(0, room));
        out.bytes[stream] += Math.min(room, chunk.length);
      }
      if (chunk.length > room) killGroup(`its ${stream} passed ${limit} bytes and it was stopped`);
    };
    child.stdout!.on('data', take('stdout'));
    child.stderr!.on('data', take('stderr'));
    const finish = (exit: number | null, startProblem?: string): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      p.signal?.removeEventListener('abort', onAbort);
      void prepared.finish({ code: exit, signal: null }).catch(() => []).then(() => resolve(ended({
        exit: problem === undefined ? exit : null,
        stdout: Buffer.concat(out.stdout).toString('utf8'),
        stderr: Buffer.concat(out.stderr).toString('utf8'),
        ...(startProblem ?? problem ? { problem: startProblem ?? problem } : {}),
      })));
    };
    child.on('error', (err) => finish(null, `it could not start: ${err.message}`));
    child.on('close', (code) => finish(code));
  }).finally(() => {
    fs.closeSync(stdin);
    fs.rmSync(dir, { recursive: true, force: true });
  });
}
