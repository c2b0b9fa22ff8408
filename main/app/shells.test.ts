/**
 * No background process is left behind: 20 background commands across 5 sessions, in a Keel
 * process that ends two sessions and then crashes (SIGKILL), or quits. After a crash the next Keel
 * to open the data folder ends what is left; a quit ends everything itself.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempRoot } from '../../test/toolContext.js';
import { Shells, type ShellView } from '../core/tools/shells.js';
import { shellsFolder } from './sessionDeps.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const temps: { remove(): void }[] = [];
afterEach(() => temps.splice(0).forEach((t) => t.remove()));

/** Running and not a zombie. */
const alive = (pid: number) => {
  try {
    return !/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

/** Every process below `pid`, from /proc. */
function tree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const e of fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(e)]);
    } catch {
      // gone
    }
  }
  const out: number[] = [];
  const walk = (p: number) => (children.get(p) ?? []).forEach((c) => (out.push(c), walk(c)));
  walk(pid);
  return out;
}

async function startKeel(how: 'sandboxed' | 'unsandboxed' = 'sandboxed') {
  const data = makeTempRoot();
  const ws = makeTempRoot();
  temps.push(data, ws);
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/shellsChild.ts', data.root, ws.root, path.join(data.root, 'keel.db'), how], { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const lines = async (n: number) => new Promise<string[]>((resolve, reject) => {
    const take = () => out.split('\n').length > n && resolve(out.split('\n').slice(0, n));
    child.stdout.on('data', (d) => {
      out += d;
      take();
    });
    child.on('exit', (code) => reject(new Error(`the Keel process exited (${code}) before it listed its shells: ${err}`)));
  });
  // Each shell's processes (the sandbox and the command inside it), read while all run.
  const started = JSON.parse((await lines(1))[0]) as ShellView[];
  const pids = new Map(started.map((s) => [s.pid!, tree(s.pid!)]));
  const after = JSON.parse((await lines(2))[1]) as ShellView[];
  const of = (list: ShellView[]) => list.flatMap((s) => [s.pid!, ...pids.get(s.pid!)!]);
  return { child, data: data.root, started, after, pids: of(started), left: of(after) };
}

describe('background shells left behind', () => {
  it.each(['sandboxed', 'unsandboxed'] as const)('20 commands across 5 sessions (%s): two sessions ended, then a crash; the next start ends the rest, 0 left', async (how) => {
    const keel = await startKeel(how);
    expect(keel.started.map((s) => s.state)).toEqual(Array(20).fill('running'));
    expect(keel.pids.length).toBeGreaterThanOrEqual(20);
    // Ending a session ends its shells: 8 gone, 12 left, every one of their processes running.
    expect(keel.after.map((s) => s.state)).toEqual(Array(12).fill('running'));
    expect(keel.pids.filter(alive).sort()).toEqual(keel.left.sort());
    keel.child.kill('SIGKILL');
    await new Promise((r) => keel.child.once('exit', r));
    // Without the sandbox (whose bubblewrap dies with its parent) nothing ends them but the next start.
    if (how === 'unsandboxed') expect(keel.left.filter(alive).sort()).toEqual(keel.left.sort());

    const next = Shells.open(shellsFolder(keel.data));
    for (let i = 0; i < 50 && keel.pids.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
    expect(keel.pids.filter(alive)).toEqual([]);
    expect(fs.readdirSync(shellsFolder(keel.data))).toEqual([]);
    await next.endAll();
  }, 120_000);

  it('a quit ends every shell itself', async () => {
    const keel = await startKeel();
    keel.child.stdin.write('quit\n');
    const code = await new Promise((r) => keel.child.once('exit', r));
    expect(code).toBe(0);
    expect(keel.pids.filter(alive)).toEqual([]);
    expect(fs.readdirSync(shellsFolder(keel.data))).toEqual([]);
  }, 120_000);
});
