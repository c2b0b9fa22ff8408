/**
 * One process drives a session at a time. The app, `keel chat`, `keel say`, `keel run` and `keel exec`
 * may share a data folder (SQLite in WAL mode lets them write it together); a session being driven
 * by one of them is locked by a file beside the database (`session-locks/N.lock`: the holder's pid,
 * its start time, what it is and since when), made with O_EXCL. A lock whose process is gone (killed,
 * crashed) is stale and taken over. The second process is told who holds the session; what it may
 * still do is read it (`keel history`, `keel changes`, the app's views).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface LockHolder {
  pid: number;
  /** The process's start time as /proc gives it (a reused pid is not the holder); '' where unknown. */
  started: string;
  host: string;
  /** What holds it, in words ("keel say", "the Keel app"). */
  what: string;
  since: string;
}

/** The session is driven by another process: the message names it and says what can still be done. */
export class SessionBusy extends Error {
  constructor(readonly sessionId: number, readonly holder: LockHolder) {
    super(`Session ${sessionId} is in use by ${holder.what} (process ${holder.pid}${holder.host === os.hostname() ? '' : ` on ${holder.host}`}, since ${holder.since}): `
      + 'one process drives a session at a time. Stop that one first, or read the session without driving it (keel history, keel changes, the app\'s views).');
  }
}

/** A held lock: `release` lets the session go (once; later calls do nothing). */
export interface SessionLock {
  release(): void;
}

/** Locks this process holds, by file, with how many holders share each. */
const held = new Map<string, number>();
let exitHook = false;

export function lockFolder(dbFile: string): string {
  return path.join(path.dirname(path.resolve(dbFile)), 'session-locks');
}

/**
 * Takes session `id` of the database `dbFile` for this process, or throws SessionBusy naming the
 * process that has it. This process may take a session it already holds (its count goes up).
 */
export function lockSession(dbFile: string, id: number, what: string): SessionLock {
  const folder = lockFolder(dbFile);
  const file = path.join(folder, `${id}.lock`);
  fs.mkdirSync(folder, { recursive: true });
  if (!held.has(file)) {
    const me: LockHolder = { pid: process.pid, started: startTime(process.pid), host: os.hostname(), what, since: new Date().toISOString() };
    for (let attempt = 0; ; attempt++) {
      try {
        fs.writeFileSync(file, JSON.stringify(me), { flag: 'wx' });
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 3) throw err;
        const holder = readHolder(file);
        if (holder && alive(holder)) throw new SessionBusy(id, holder);
        // Stale (its process is gone) or unreadable (a holder died mid-write): taken over.
        fs.rmSync(file, { force: true });
      }
    }
    if (!exitHook) {
      exitHook = true;
      process.once('exit', () => { for (const f of held.keys()) fs.rmSync(f, { force: true }); });
    }
  }
  held.set(file, (held.get(file) ?? 0) + 1);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      const n = (held.get(file) ?? 1) - 1;
      if (n > 0) return void held.set(file, n);
      held.delete(file);
      if (readHolder(file)?.pid === process.pid) fs.rmSync(file, { force: true });
    },
  };
}

/** Who holds the session now, or undefined when no live process does. */
export function sessionHolder(dbFile: string, id: number): LockHolder | undefined {
  const holder = readHolder(path.join(lockFolder(dbFile), `${id}.lock`));
  return holder && alive(holder) ? holder : undefined;
}

function readHolder(file: string): LockHolder | undefined {
  try {
    const h = JSON.parse(fs.readFileSync(file, 'utf8')) as LockHolder;
    return typeof h.pid === 'number' ? h : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the holder's process still runs (another host's cannot be checked: taken as running). */
function alive(h: LockHolder): boolean {
  if (h.host !== os.hostname()) return true;
  try {
    process.kill(h.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return h.started === '' || startTime(h.pid) === h.started;
}

/** A process's start time in clock ticks since boot (/proc/PID/stat field 22); '' where there is no /proc. */
function startTime(pid: number): string {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
  } catch {
    return '';
  }
}
