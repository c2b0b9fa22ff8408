/**
 * The processes of a command Keel started, read from /proc: what is below the process it
 * started, and where the command has a cgroup of its own (processCap.ts), every process that
 * lists, so one whose parent ended is found too. Used to stop a background shell gracefully and
 * to kill what a command left (bash's timeout, a quit, a crash's leftovers).
 */
import fs from 'node:fs';
import path from 'node:path';

/** A process's start time (clock ticks since boot, /proc), or undefined when it is gone or there is no /proc. */
export function startTime(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** Whether the process `pid` that started at `start` is still running (without /proc: whether any `pid` is). */
export function alive(pid: number, start: string): boolean {
  if (fs.existsSync('/proc/self/stat')) return startTime(pid) === start;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface Proc { pid: number; name: string; parent: number }

/** A process's program name and parent (/proc), or undefined when it is gone. */
function proc(pid: number): Proc | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    return { pid, name, parent: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) };
  } catch {
    return undefined;
  }
}

/** Every process below `pid` (read from /proc; none where there is no /proc), with its program name and parent. */
function below(pid: number): Proc[] {
  const children = new Map<number, Proc[]>();
  let entries: string[] = [];
  try {
    entries = fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return [];
  }
  for (const entry of entries) {
    const p = proc(Number(entry));
    if (p) children.set(p.parent, [...(children.get(p.parent) ?? []), p]);
  }
  const found: Proc[] = [];
  const walk = (p: number): void => {
    for (const c of children.get(p) ?? []) {
      found.push(c);
      walk(c.pid);
    }
  };
  walk(pid);
  return found;
}

/** The processes a cgroup folder lists ([] where it is gone). */
export function members(cgroup: string): number[] {
  try {
    return fs.readFileSync(path.join(cgroup, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * The processes of the command started as `pid`: those below it, and where it has a cgroup of its
 * own, every one that lists (a process whose parent ended is no longer below `pid`: a sandbox
 * started just as its shell was stopped goes on without it).
 */
export function processes(pid: number, cgroup: string | undefined): Proc[] {
  const found = below(pid);
  const known = new Set([pid, ...found.map((p) => p.pid)]);
  for (const n of cgroup ? members(cgroup) : []) {
    const p = known.has(n) ? undefined : proc(n);
    if (p) found.push(p);
  }
  return found;
}

export function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // It is gone.
  }
}

/** SIGKILL to a command's process group and every process of it (one that left the group too). */
export function killTree(pid: number, cgroup: string | undefined): void {
  const tree = processes(pid, cgroup);
  signal(-pid, 'SIGKILL');
  for (const p of tree) signal(p.pid, 'SIGKILL');
}
