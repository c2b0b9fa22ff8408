import { z } from 'zod';
import { contextConfig, fill, toolConfig } from '../config.js';
import { decodeCut, NO_RUNNER, spawnPrepared, type PreparedCommand } from './commandRunner.js';
import { killTree } from './processTree.js';
import { toolParameters } from './schema.js';
import { ToolError, type Tool } from './types.js';

export const BashArgs = z.strictObject({
  command: z.string().describe('The command line, run with bash -c in the workspace root.'),
  timeout_ms: z.int().min(1)
    .describe(`Milliseconds before the command is killed (default ${toolConfig.bash.default_timeout_ms}, at most ${toolConfig.bash.max_timeout_ms}).`)
    .optional(),
  run_in_background: z.boolean()
    .describe('Start the command and answer at once with a shell id; read its output with bash_output, stop it with kill_shell.')
    .optional(),
});
export type BashArgs = z.infer<typeof BashArgs>;

/**
 * After the command itself exits, how long to wait for its output pipes to close. A background
 * process it started (`server &`) keeps them open; it is left running, and its later output is
 * not part of this result.
 */
const PIPE_GRACE_MS = 500;

/**
 * Runs `bash -c COMMAND` in the workspace root through the session's command runner (the OS
 * sandbox, with the access the gate gave this call), stdin closed, in its own process group so a
 * timeout or a cancel kills everything it started. stdout and stderr are one stream, in the order
 * they were written, captured whole up to `max_output_bytes` (hygiene caps what the model sees;
 * the whole text is stored for recall), decoded as UTF-8; one trailing newline is removed. Past
 * the limit the command is stopped. A non-zero exit, a timeout, a signal, the stop, and what the
 * sandbox refused a failed command each add their line (loop.json context.texts); so does what the
 * runner undid or saw changed in a git folder afterwards (`[git check: …]`).
 */
export const bashTool: Tool<BashArgs> = {
  name: 'bash',
  access: { reads: true, writes: true, runs: true, network: true, paths: [], command: 'command' },
  parameters: toolParameters(BashArgs),
  async run(args, ctx) {
    if (typeof args.command !== 'string') throw new ToolError('Error: the command is missing.');
    const requested = args.timeout_ms ?? toolConfig.bash.default_timeout_ms;
    if (!(requested >= 1)) throw new ToolError(`Error: timeout_ms must be at least 1 (it was ${String(args.timeout_ms)}).`);
    const timeoutMs = Math.min(requested, toolConfig.bash.max_timeout_ms);
    if (ctx.signal?.aborted) throw new ToolError('Error: the command was cancelled before it started.');
    if (args.run_in_background === true && !ctx.shells) throw new ToolError('Error: background commands cannot run in this session. Nothing was run.');
    const runner = ctx.commands ?? NO_RUNNER;
    let prepared: PreparedCommand;
    try {
      prepared = await runner.prepare(args.command, { root: ctx.root, access: ctx.access ?? 'read-only' });
    } catch (err) {
      throw new ToolError(`Error: the sandbox could not prepare the command: ${(err as Error).message}. Nothing was run.`);
    }
    if (args.run_in_background === true && ctx.shells) {
      // A background command lives until it ends, is stopped, or its session ends; timeout_ms only when given.
      const shell = ctx.shells.start(prepared, { command: args.command, root: ctx.root, timeoutMs: args.timeout_ms === undefined ? undefined : timeoutMs });
      return { kind: 'text', body: fill(toolConfig.shells.texts.started, { id: shell.id }) };
    }
    return { kind: 'text', body: await runCommand(prepared, ctx.root, timeoutMs, ctx.signal) };
  },
};

interface Exit { code: number | null; signal: NodeJS.Signals | null }

function runCommand(prepared: PreparedCommand, cwd: string, timeoutMs: number, signal?: AbortSignal): Promise<string> {
  const limit = toolConfig.bash.max_output_bytes;
  return new Promise((resolve, reject) => {
    const child = spawnPrepared(prepared, cwd);
    const chunks: Buffer[] = [];
    let bytes = 0;
    let stoppedAt: number | undefined;
    let timedOut = false;
    let exit: Exit | undefined;
    let settled = false;
    let grace: NodeJS.Timeout | undefined;

    const killGroup = (): void => {
      if (child.pid !== undefined) killTree(child.pid, prepared.cgroup);
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
      const ended = exit;
      void prepared.finish(ended).catch(() => []).then((refused) => {
        const notes = prepared.notes?.() ?? [];
        resolve(formatResult(stoppedAt === undefined ? Buffer.concat(chunks).toString('utf8') : decodeCut(Buffer.concat(chunks)), ended, { timedOut, timeoutMs, stoppedAt, refused, notes }));
      });
    };

    const take = (chunk: Buffer): void => {
      if (stoppedAt !== undefined) return;
      if (bytes + chunk.length > limit) {
        chunks.push(chunk.subarray(0, limit - bytes));
        stoppedAt = limit;
        killGroup();
        return;
      }
      chunks.push(chunk);
      bytes += chunk.length;
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', (err) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', killGroup);
      void prepared.finish({ code: null, signal: null }).catch(() => []);
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
  exit: Exit,
  o: { timedOut: boolean; timeoutMs: number; stoppedAt?: number; refused: string[]; notes?: string[] },
): string {
  const body = output.endsWith('\n') ? output.slice(0, -1) : output;
  const lines: string[] = [];
  if (o.stoppedAt !== undefined) lines.push(fill(contextConfig.texts.output_stopped, { bytes: o.stoppedAt }));
  else if (o.timedOut) lines.push(fill(contextConfig.texts.timed_out, { ms: o.timeoutMs }));
  else if (exit.signal) lines.push(`[killed by ${exit.signal}]`);
  else if (exit.code !== 0 && exit.code !== null) lines.push(fill(contextConfig.texts.exit_code, { code: exit.code }));
  const failed = lines.length > 0;
  if (failed) for (const what of new Set(o.refused)) lines.push(fill(contextConfig.texts.sandbox_refused, { what }));
  for (const note of o.notes ?? []) lines.push(`[git check: ${note}]`);
  return [...(body === '' ? [] : [body]), ...lines].join('\n');
}
