import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pidsRunning } from '../../../test/processes.js';
import { makeContext, makeTempRoot } from '../../../test/toolContext.js';
import { toolConfig } from '../config.js';
import { bashTool, type BashArgs } from './bash.js';
import { bashOutputTool } from './bashOutput.js';
import type { CommandRunner } from './commandRunner.js';
import { killShellTool } from './killShell.js';
import { Shells } from './shells.js';
import { ToolError, type ToolContext } from './types.js';

const ws = makeTempRoot();
const data = makeTempRoot();
const shells = Shells.open(path.join(data.root, 'shells'));
afterAll(async () => {
  await shells.endAll();
  ws.remove();
  data.remove();
});

let sessions = 0;
/** A new session's context: its own shells, and the runner given (the unsandboxed one when none). */
function session(commands?: CommandRunner): ToolContext {
  sessions++;
  return { ...makeContext(ws.root), shells: shells.forSession(sessions), commands, access: 'workspace-write' };
}

const text = async (run: Promise<{ kind: string; body?: string }>): Promise<string> => {
  const out = await run;
  if (out.kind !== 'text' || out.body === undefined) throw new Error('expected text');
  return out.body;
};
const bash = (ctx: ToolContext, args: BashArgs) => text(bashTool.run(args, ctx));
const output = (ctx: ToolContext, args: { bash_id: string; filter?: string; wait_ms?: number }) => text(bashOutputTool.run(args, ctx));
const kill = (ctx: ToolContext, shell_id: string) => text(killShellTool.run({ shell_id }, ctx));
const alive = (pid: number) => fs.existsSync(`/proc/${pid}`) && !/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));

describe('background shells', () => {
  it('answers at once with an id, then reads only what is new, ending with the status', async () => {
    const ctx = session();
    const started = Date.now();
    expect(await bash(ctx, { command: 'echo one; sleep 0.4; echo two; exit 3', run_in_background: true }))
      .toBe('Started in the background as shell bg1. Read what it prints with bash_output (bash_id "bg1"); stop it with kill_shell (shell_id "bg1").');
    expect(Date.now() - started).toBeLessThan(300);
    await new Promise((r) => setTimeout(r, 150));
    expect(await output(ctx, { bash_id: 'bg1' })).toBe('one\n[shell bg1 is running]');
    expect(await output(ctx, { bash_id: 'bg1', wait_ms: 10_000 })).toBe('two\n[shell bg1 exited with code 3]');
    expect(await output(ctx, { bash_id: 'bg1' })).toBe('[shell bg1 exited with code 3]');
  });

  it('numbers shells per session and names the ones it has for an unknown id', async () => {
    const a = session();
    const b = session();
    await bash(a, { command: 'true', run_in_background: true });
    await bash(a, { command: 'true', run_in_background: true });
    expect(await bash(b, { command: 'true', run_in_background: true })).toContain('shell bg1.');
    await output(a, { bash_id: 'bg2', wait_ms: 5000 });
    await expect(output(a, { bash_id: 'bg7' })).rejects.toThrow(/^Error: there is no background shell bg7 in this session\. Shells: bg1 \((running|exited)\), bg2 \(exited\)\.$/);
    await expect(output(session(), { bash_id: 'bg1' })).rejects.toThrow('Error: there is no background shell bg1 in this session; none was started.');
    await expect(kill(session(), 'bg1')).rejects.toBeInstanceOf(ToolError);
  });

  it('keeps only the matching new lines with a filter, and consumes the rest', async () => {
    const ctx = session();
    await bash(ctx, { command: 'printf "ok 1\\nFAIL 2\\nok 3\\nFAIL 4\\n"', run_in_background: true });
    expect(await output(ctx, { bash_id: 'bg1', filter: '^FAIL', wait_ms: 5000 })).toBe('FAIL 2\nFAIL 4\n[shell bg1 exited with code 0]');
    await expect(output(ctx, { bash_id: 'bg1', filter: '(' })).rejects.toThrow(/^Error: filter is not a regular expression/);
  });

  it('stops a shell and everything it started; one that ignores SIGTERM is killed after the grace period', async () => {
    const ctx = session();
    await bash(ctx, { command: 'sleep 300 & sleep 300', run_in_background: true });
    const [first] = shells.list(sessions);
    expect(await kill(ctx, 'bg1')).toBe('Shell bg1 was stopped.');
    expect(alive(first.pid!)).toBe(false);
    expect(await output(ctx, { bash_id: 'bg1' })).toBe('[shell bg1 was stopped: kill_shell stopped it]');
    expect(await kill(ctx, 'bg1')).toBe('Shell bg1 had already ended: [shell bg1 was stopped: kill_shell stopped it]');

    await bash(ctx, { command: "trap '' TERM; echo ready; while true; do sleep 0.1; done", run_in_background: true });
    await output(ctx, { bash_id: 'bg2', wait_ms: 300 });
    const started = Date.now();
    expect(await kill(ctx, 'bg2')).toBe(`Shell bg2 ignored SIGTERM for ${toolConfig.shells.kill_grace_ms} ms and was killed.`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(toolConfig.shells.kill_grace_ms - 50);
  }, 20_000);

  it('ends a stopped shell whose output a process it left behind holds open, once the grace periods are over', async () => {
    const ctx = session();
    // `setsid` puts the process out of the shell's group and, its parent gone, out of its tree: no kill reaches it.
    await bash(ctx, { command: '(setsid sleep 319 &); echo up; sleep 300', run_in_background: true });
    expect(await output(ctx, { bash_id: 'bg1', wait_ms: 300 })).toMatch(/^up\n/);
    const started = Date.now();
    expect(await kill(ctx, 'bg1')).toBe(`Shell bg1 ignored SIGTERM for ${toolConfig.shells.kill_grace_ms} ms and was killed.`);
    expect(Date.now() - started).toBeLessThan(3 * toolConfig.shells.kill_grace_ms);
    expect(await output(ctx, { bash_id: 'bg1' })).toBe('[shell bg1 was stopped: kill_shell stopped it]');
    for (const pid of pidsRunning('sleep 319')) process.kill(pid, 'SIGKILL');
  }, 20_000);

  it('keeps a bounded file of what it prints and says how much the reader missed', async () => {
    const ctx = session();
    const max = toolConfig.shells.max_bytes;
    // Twice the bound, in lines of 100 bytes.
    await bash(ctx, { command: `yes "$(printf '%099d' 7)" | head -c ${2 * max}`, run_in_background: true });
    const answer = await output(ctx, { bash_id: 'bg1', wait_ms: 60_000 });
    const [shell] = shells.list(sessions);
    expect(shell.bytes).toBe(2 * max);
    const file = fs.readdirSync(path.join(data.root, 'shells')).find((f) => f.endsWith(`.s${sessions}.bg1.log`))!;
    expect(fs.statSync(path.join(data.root, 'shells', file)).size).toBeLessThanOrEqual(max);
    const lines = answer.split('\n');
    const dropped = Number(/^\[(\d+) earlier bytes of its output were not kept\]$/.exec(lines[0])?.[1]);
    expect(dropped).toBeGreaterThanOrEqual(max);
    expect(lines.at(-1)).toBe('[shell bg1 exited with code 0]');
    // What follows the note is whole lines, the newest kept: together with what was dropped, everything.
    const shown = lines.slice(1, -1).join('\n').length + 1;
    expect(dropped + shown).toBe(2 * max);
  }, 90_000);

  it('refuses to start one where the session has no shells, and runs nothing', async () => {
    const marker = path.join(ws.root, 'ran');
    await expect(bashTool.run({ command: `touch ${marker}`, run_in_background: true }, makeContext(ws.root))).rejects.toThrow('Error: background commands cannot run in this session. Nothing was run.');
    expect(fs.existsSync(marker)).toBe(false);
  });
});
