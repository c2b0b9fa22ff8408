/** A background shell in the real OS sandbox: the gate's access holds, and SIGTERM reaches the command, not bubblewrap. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pidsRunning } from '../../test/processes.js';
import { makeContext, makeTempRoot } from '../../test/toolContext.js';
import { bashTool, type BashArgs } from '../core/tools/bash.js';
import { bashOutputTool } from '../core/tools/bashOutput.js';
import { killShellTool } from '../core/tools/killShell.js';
import { Shells } from '../core/tools/shells.js';
import type { ToolContext } from '../core/tools/types.js';
import { createSandboxRunner } from './runner.js';

const ws = makeTempRoot();
const data = makeTempRoot();
const shells = Shells.open(path.join(data.root, 'shells'));
afterAll(async () => {
  await shells.endAll();
  ws.remove();
  data.remove();
});

const text = async (run: Promise<{ kind: string; body?: string }>): Promise<string> => {
  const out = await run;
  if (out.kind !== 'text' || out.body === undefined) throw new Error('expected text');
  return out.body;
};
const bash = (ctx: ToolContext, args: BashArgs) => text(bashTool.run(args, ctx));
const output = (ctx: ToolContext, args: { bash_id: string; wait_ms?: number }) => text(bashOutputTool.run(args, ctx));
const kill = (ctx: ToolContext, shell_id: string) => text(killShellTool.run({ shell_id }, ctx));

describe('background shells in the OS sandbox', () => {
  it('runs in the OS sandbox with the access the gate gave, and a SIGTERM reaches the command inside it', async () => {
    const sandbox = createSandboxRunner({ dataFolder: data.root });
    if ((await sandbox.status()).kind !== 'sandboxed') throw new Error('the OS sandbox must run here (bubblewrap, socat, ripgrep)');
    const ctx: ToolContext = { ...makeContext(ws.root), shells: shells.forSession(1), commands: sandbox, access: 'workspace-write' };
    ctx.access = 'read-only';
    await bash(ctx, { command: `echo hi > ${path.join(ws.root, 'x')}; echo done`, run_in_background: true });
    expect(await output(ctx, { bash_id: 'bg1', wait_ms: 30_000 })).toMatch(/done\n\[shell bg1 exited with code 0\]$/);
    expect(fs.existsSync(path.join(ws.root, 'x'))).toBe(false);

    // A command that cleans up on SIGTERM gets to (bubblewrap would SIGKILL it were bubblewrap signalled).
    ctx.access = 'workspace-write';
    await bash(ctx, { command: `trap 'echo cleaned > ${path.join(ws.root, 'clean')}; exit 0' TERM; echo up; while true; do sleep 0.1; done`, run_in_background: true });
    for (let i = 0; i < 100 && !(await output(ctx, { bash_id: 'bg2' })).startsWith('up'); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await kill(ctx, 'bg2')).toBe('Shell bg2 was stopped.');
    expect(fs.readFileSync(path.join(ws.root, 'clean'), 'utf8')).toBe('cleaned\n');
  }, 60_000);

  it('stops a sandbox whose own shell ended before it (a stop just as it started): everything in it, by its cgroup', async () => {
    const sandbox = createSandboxRunner({ dataFolder: data.root });
    const prepared = await sandbox.prepare('echo up; sleep 317', { root: ws.root, access: 'workspace-write' });
    expect(prepared.cgroup, 'Keel can make a pids cgroup here').toBeDefined();
    // The shell Keel started leaves bubblewrap running without it, as a SIGTERM to the shell does before
    // bubblewrap has asked to die with its parent (modelled by leaving that flag out).
    const line = `${prepared.line.replace('--die-with-parent ', '')} & sleep 0.5`;
    const own = shells.forSession(2);
    const view = own.start({ ...prepared, line }, { command: 'sleep 317', root: ws.root });
    let seen = '';
    for (let i = 0; i < 100 && !seen; i++) seen = (await own.read(view.id, { waitMs: 100 })).text;
    expect(seen).toBe('up\n');
    for (let i = 0; i < 50 && fs.existsSync(`/proc/${view.pid}`); i++) await new Promise((r) => setTimeout(r, 100));
    expect(pidsRunning('sleep 317')).toHaveLength(1);
    const stopped = await own.kill(view.id);
    expect(stopped.forced).toBe(false);
    expect(stopped.shell.state).toBe('stopped');
    expect(pidsRunning('sleep 317')).toEqual([]);
  }, 60_000);
});
