/**
 * Issue 35 class 7: nothing Keel starts outlives it. A process that started the sandbox (its socat
 * bridges) and is then killed with SIGKILL, so no exit handler of its runs, leaves no bridge behind;
 * one that stops cleanly leaves neither a bridge nor its watcher. Counted from /proc before and after.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxStatus } from './runner.js';

const RUNNER = path.resolve('main/sandbox/runner.ts');

/** Live processes whose command line holds `text`, with their parent. */
function processes(text: string): { pid: number; ppid: number }[] {
  const out: { pid: number; ppid: number }[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (cmdline.includes(text) && !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) out.push({ pid: Number(entry), ppid: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) });
    } catch {
      // gone
    }
  }
  return out;
}

/** Starts the sandbox in a child process; resolves once it is up, with the child. */
function host(code: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `import { sandboxStatus, stopSandbox } from ${JSON.stringify(RUNNER)};\nconst s = await sandboxStatus();\nconsole.log(s.kind);\n${code}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  const ready = new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString().trim())));
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return { child, ready, closed };
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) if (check()) return true;
  return check();
}

describe('the sandbox bridges end with their owner', { timeout: 60_000 }, () => {
  it('a host killed with SIGKILL leaves no socat bridge and no watcher behind', async () => {
    if ((await sandboxStatus()).kind !== 'sandboxed') return expect.fail('this test needs bubblewrap and socat (the CI installs them)');
    const h = host('setInterval(() => {}, 1000);');
    expect(await h.ready).toBe('sandboxed');
    const pid = h.child.pid!;
    const bridges = processes('UNIX-LISTEN:').filter((p) => p.ppid === pid);
    expect(bridges.length).toBeGreaterThan(0);
    const watching = () => processes(`keel-bridge-watch\0${pid}\0`);
    expect(watching()).toHaveLength(1);
    h.child.kill('SIGKILL');
    await h.closed;
    const alive = () => bridges.filter((b) => fs.existsSync(`/proc/${b.pid}`) && !fs.readFileSync(`/proc/${b.pid}/stat`, 'utf8').includes(') Z'));
    expect(await until(() => alive().length === 0, 5_000), `bridges still running: ${JSON.stringify(alive())}`).toBe(true);
    expect(await until(() => watching().length === 0, 2_000)).toBe(true);
  });

  it('a host that stops the sandbox and exits leaves no bridge and no watcher', async () => {
    const before = processes('keel-bridge-watch').length;
    const h = host('await stopSandbox();');
    expect(await h.ready).toBe('sandboxed');
    const pid = h.child.pid!;
    await h.closed;
    expect(await until(() => processes('UNIX-LISTEN:').every((p) => p.ppid !== pid) && processes('keel-bridge-watch').length <= before, 5_000)).toBe(true);
  });
});
