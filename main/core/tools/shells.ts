/**
 * Background shells (bash `run_in_background`): commands that run on while the session goes on,
 * each with an id of its session (`bg1`, `bg2`…). What one prints goes to a file of its own in
 * Keel's data folder, bounded (loop.json `tools.shells.max_bytes`: past it the file starts again
 * and the next read says how much was dropped); `bash_output` reads what came since it last read,
 * `kill_shell` stops one (SIGTERM to its process group, SIGKILL after a grace period).
 *
 * None outlives its session: ending a session ends its shells, `endAll` ends every one (quit), a
 * process exit kills what is left, and each running shell has a record file named after the Keel
 * process that started it, so the next Keel to open the folder ends what a crash left behind.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fill, toolConfig } from '../config.js';
import { completeLength, spawnPrepared, type PreparedCommand } from './commandRunner.js';
import { alive, killTree, members, processes, signal, startTime } from './processTree.js';

const config = toolConfig.shells;
const texts = config.texts;

export const SHELL_STATES = ['running', 'exited', 'stopped', 'failed'] as const;
export type ShellState = (typeof SHELL_STATES)[number];

/** A shell as the person and the model see it. */
export interface ShellView {
  id: string;
  sessionId: number;
  command: string;
  pid?: number;
  startedAt: number;
  endedAt?: number;
  state: ShellState;
  /** exited: its exit code, or the signal that ended it. */
  code?: number;
  signal?: string;
  /** stopped: why (kill_shell, its timeout, its session ended); failed: the error. */
  why?: string;
  /** Bytes it printed in all, and how many of them are kept no longer (the file started again). */
  bytes: number;
  dropped: number;
}

/** What a read returns: the new output, how many unread bytes were dropped before it, and the shell now. */
export interface ShellRead {
  text: string;
  skipped: number;
  shell: ShellView;
}

/** One session's shells: what the tools use (ToolContext.shells). */
export interface SessionShells {
  start(prepared: PreparedCommand, o: { command: string; root: string; timeoutMs?: number }): ShellView;
  /** What the shell printed since the last read, after waiting up to `waitMs` for it to end. */
  read(id: string, o?: { waitMs?: number; signal?: AbortSignal }): Promise<ShellRead>;
  /** Stops it; `forced` when it outlived SIGTERM. */
  kill(id: string, why?: string): Promise<{ shell: ShellView; forced: boolean; already: boolean }>;
  list(): ShellView[];
}

/** A shell id this session does not have: the error names the ones it has. */
export class UnknownShell extends Error {}

/** The shell's one-line status, as bash_output ends with it and the app shows it. */
export function describeShell(s: ShellView): string {
  if (s.state === 'running') return fill(texts.running, { id: s.id });
  if (s.state === 'failed') return fill(texts.failed, { id: s.id, error: s.why ?? 'unknown error' });
  if (s.state === 'stopped') return fill(texts.stopped, { id: s.id, why: s.why ?? 'kill_shell' });
  return s.signal ? fill(texts.ended_by, { id: s.id, signal: s.signal }) : fill(texts.exited, { id: s.id, code: s.code ?? 0 });
}

/** What stopping a shell answers (kill_shell, and the app's Stop): stopped, killed after the grace period, or it had ended. */
export function describeKill(r: { shell: ShellView; forced: boolean; already: boolean }): string {
  if (r.already) return fill(texts.already_ended, { id: r.shell.id, status: describeShell(r.shell) });
  return r.forced ? fill(texts.killed_forced, { id: r.shell.id, ms: config.kill_grace_ms }) : fill(texts.killed, { id: r.shell.id });
}

interface Shell {
  view: ShellView;
  file: string;
  record: string;
  fd?: number;
  /** The byte (of all it printed) the file begins at, and where the model last read to. */
  fileStart: number;
  readAt: number;
  ended: Promise<void>;
  /** Ends it without waiting for its output to close (what holds it open was killed, or cannot be found). */
  abandon(): void;
  cgroup?: string;
  timer?: NodeJS.Timeout;
}

/** The Keel process's own name for its files: pid and start time, so a reused pid is not taken for it. */
const ownName = (): string => `${process.pid}.${startTime(process.pid) ?? 0}`;

/**
 * SIGTERM to the command's own processes, each once (`done` holds those signalled). In the OS
 * sandbox that is what runs inside bubblewrap, never bubblewrap nor the first process it starts
 * (the sandbox's own shell): either one ending ends the sandbox, and the command with SIGKILL,
 * before it could end cleanly. Called again while the grace period runs, for what started since
 * (a command stopped as it starts is not inside its sandbox yet).
 */
function terminate(pid: number, cgroup: string | undefined, done: Set<number>): void {
  const tree = processes(pid, cgroup);
  const sandbox = new Set(tree.filter((p) => p.name === 'bwrap').map((p) => p.pid));
  if (sandbox.size === 0 && !done.has(pid)) signal(-pid, 'SIGTERM');
  sandbox.add(pid);
  done.add(pid);
  for (const p of tree) {
    if (sandbox.has(p.pid) || sandbox.has(p.parent) || done.has(p.pid)) continue;
    done.add(p.pid);
    signal(p.pid, 'SIGTERM');
  }
}

/** Every table of this process, for the exit handler. */
const opened = new Set<Shells>();
const killLeft = (): void => {
  for (const shells of opened) shells.killRunning();
};

/**
 * The background shells of one Keel process, in `dir`. `open` first ends the shells of Keel
 * processes that are gone (a crash), and removes their files.
 */
export class Shells {
  private readonly shells = new Map<number, Map<string, Shell>>();
  private readonly counters = new Map<number, number>();
  private readonly listeners = new Set<(shell: ShellView) => void>();
  private readonly name = ownName();

  private constructor(private readonly dir: string) {
    if (opened.size === 0) process.on('exit', killLeft);
    opened.add(this);
  }

  /** At process exit, what is still running is killed (synchronously: nothing waits at exit). */
  killRunning(): void {
    for (const s of this.all()) if (s.view.state === 'running' && s.view.pid) killTree(s.view.pid, s.cgroup);
  }

  /** Nothing is written until a shell starts: the folder is made then. */
  static open(dir: string): Shells {
    if (fs.existsSync(dir)) sweep(dir);
    return new Shells(dir);
  }

  /** Called with a shell's view when it starts and when it ends. Returns the unsubscribe. */
  onChange(listener: (shell: ShellView) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  forSession(sessionId: number): SessionShells {
    return {
      start: (prepared, o) => this.start(sessionId, prepared, o),
      read: (id, o) => this.read(sessionId, id, o),
      kill: (id, why) => this.kill(sessionId, id, why),
      list: () => this.list(sessionId),
    };
  }

  /** The shells of a session (all sessions when left out), oldest first. */
  list(sessionId?: number): ShellView[] {
    return this.all().filter((s) => sessionId === undefined || s.view.sessionId === sessionId).map((s) => ({ ...s.view }));
  }

  /**
   * What the person is shown of a shell's output: what its file holds now, or its last `tail` bytes
   * (whole characters), and how many bytes it printed before that. The model's read position does
   * not move: what bash_output has not read stays unread.
   */
  output(sessionId: number, id: string, tail = Infinity): { text: string; dropped: number; shell: ShellView } {
    const shell = this.find(sessionId, id);
    const { text, end } = this.bytes(shell, Math.max(shell.fileStart, shell.view.bytes - tail));
    return { text, dropped: end - Buffer.byteLength(text), shell: { ...shell.view } };
  }

  /** Ends a session's shells (the session was deleted, or its process is closing) and removes their files. */
  async endSession(sessionId: number, why = 'its session ended'): Promise<void> {
    const own = [...(this.shells.get(sessionId)?.values() ?? [])];
    await Promise.all(own.map((s) => this.stop(s, why)));
    for (const s of own) fs.rmSync(s.file, { force: true });
    this.shells.delete(sessionId);
  }

  /** Ends every shell of this process (Keel quits). */
  async endAll(): Promise<void> {
    await Promise.all([...this.shells.keys()].map((id) => this.endSession(id, 'Keel quit')));
  }

  private all(): Shell[] {
    return [...this.shells.values()].flatMap((m) => [...m.values()]);
  }

  private find(sessionId: number, id: string): Shell {
    const own = this.shells.get(sessionId);
    const shell = own?.get(id);
    if (shell) return shell;
    const list = [...(own?.values() ?? [])].map((s) => `${s.view.id} (${s.view.state})`);
    throw new UnknownShell(list.length > 0 ? fill(texts.unknown, { id, list: list.join(', ') }) : fill(texts.none, { id }));
  }

  private changed(shell: Shell): void {
    for (const listener of this.listeners) listener({ ...shell.view });
  }

  private start(sessionId: number, prepared: PreparedCommand, o: { command: string; root: string; timeoutMs?: number }): ShellView {
    const n = (this.counters.get(sessionId) ?? 0) + 1;
    this.counters.set(sessionId, n);
    const id = `bg${n}`;
    const base = path.join(this.dir, `${this.name}.s${sessionId}.${id}`);
    const view: ShellView = { id, sessionId, command: o.command, startedAt: Date.now(), state: 'running', bytes: 0, dropped: 0 };
    let done!: () => void;
    const shell: Shell = {
      view, file: `${base}.log`, record: `${base}.json`, fileStart: 0, readAt: 0, ended: new Promise((r) => (done = r)),
      abandon: () => undefined, ...(prepared.cgroup ? { cgroup: prepared.cgroup } : {}),
    };
    if (!this.shells.has(sessionId)) this.shells.set(sessionId, new Map());
    this.shells.get(sessionId)!.set(id, shell);
    fs.mkdirSync(this.dir, { recursive: true });
    shell.fd = fs.openSync(shell.file, 'w');

    let over = false;
    const end = (patch: Partial<ShellView>, exit: { code: number | null; signal: string | null }): void => {
      if (over) return;
      over = true;
      if (view.state === 'running') Object.assign(view, { state: 'exited', ...patch });
      view.endedAt ??= Date.now();
      clearTimeout(shell.timer);
      if (shell.fd !== undefined) fs.closeSync(shell.fd);
      shell.fd = undefined;
      fs.rmSync(shell.record, { force: true });
      void prepared.finish(exit).catch(() => []).finally(() => {
        done();
        this.changed(shell);
      });
    };

    const child = spawnPrepared(prepared, o.root);
    view.pid = child.pid;
    if (child.pid !== undefined) {
      const record = { pid: child.pid, start: startTime(child.pid) ?? '', cgroup: prepared.cgroup, sessionId, id, command: o.command };
      fs.writeFileSync(shell.record, JSON.stringify(record));
    }
    let exit: { code: number | null; signal: string | null } = { code: null, signal: 'SIGKILL' };
    child.on('exit', (code, signal) => (exit = { code, signal }));
    shell.abandon = () => {
      child.stdout.destroy();
      child.stderr.destroy();
      end(exit.signal ? { signal: exit.signal } : { code: exit.code ?? 0 }, exit);
    };
    const take = (chunk: Buffer): void => this.take(shell, chunk);
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', (err) => end({ state: 'failed', why: err.message }, { code: null, signal: null }));
    // `close`: the pipes are drained too. A process it left behind that holds them keeps the shell running.
    child.on('close', (code: number | null, signal: NodeJS.Signals | null) => {
      end(signal ? { signal } : { code: code ?? 0 }, { code, signal });
    });
    if (o.timeoutMs !== undefined) {
      shell.timer = setTimeout(() => void this.stop(shell, `it ran past its timeout of ${o.timeoutMs} ms`), o.timeoutMs);
    }
    this.changed(shell);
    return { ...view };
  }

  /** Keeps a chunk in the shell's file; past the limit the file starts again, and the bytes before are dropped. */
  private take(shell: Shell, chunk: Buffer): void {
    if (shell.fd === undefined) return;
    const max = config.max_bytes;
    let at = shell.view.bytes;
    if (at + chunk.length - shell.fileStart > max) {
      fs.ftruncateSync(shell.fd, 0);
      const keep = Math.min(chunk.length, max);
      at += chunk.length - keep;
      shell.fileStart = at;
      chunk = chunk.subarray(chunk.length - keep);
    }
    fs.writeSync(shell.fd, chunk, 0, chunk.length, at - shell.fileStart);
    shell.view.bytes = at + chunk.length;
    shell.view.dropped = shell.fileStart;
  }

  /** The file's bytes from `from` (of all printed) to the end, as text, with a character cut at either end left for later. */
  private bytes(shell: Shell, from: number): { text: string; end: number } {
    const start = Math.max(from, shell.fileStart);
    const length = shell.view.bytes - start;
    if (length <= 0) return { text: '', end: start };
    const buf = Buffer.alloc(length);
    const fd = fs.openSync(shell.file, 'r');
    let got: number;
    try {
      got = fs.readSync(fd, buf, 0, length, start - shell.fileStart);
    } finally {
      fs.closeSync(fd);
    }
    let raw = buf.subarray(0, got);
    let lead = 0;
    while (lead < Math.min(3, raw.length) && (raw[lead] & 0xc0) === 0x80) lead++;
    raw = raw.subarray(lead);
    const whole = completeLength(raw);
    return { text: raw.subarray(0, whole).toString('utf8'), end: start + lead + whole };
  }

  private async read(sessionId: number, id: string, o: { waitMs?: number; signal?: AbortSignal } = {}): Promise<ShellRead> {
    const shell = this.find(sessionId, id);
    const wait = Math.min(o.waitMs ?? 0, config.max_wait_ms);
    if (wait > 0 && shell.view.state === 'running') {
      let timer: NodeJS.Timeout | undefined;
      let onAbort: (() => void) | undefined;
      await Promise.race([
        shell.ended,
        new Promise<void>((r) => (timer = setTimeout(r, wait))),
        new Promise<void>((r) => o.signal?.addEventListener('abort', (onAbort = () => r()), { once: true })),
      ]);
      clearTimeout(timer);
      if (onAbort) o.signal?.removeEventListener('abort', onAbort);
    }
    // A read at most as long as a command's whole output (bash's max_output_bytes): the newest part of what is unread.
    const from = Math.max(shell.readAt, shell.view.bytes - toolConfig.bash.max_output_bytes);
    const skipped = Math.max(shell.fileStart, from) - shell.readAt;
    const { text, end } = this.bytes(shell, from);
    shell.readAt = shell.view.state === 'running' ? end : shell.view.bytes;
    return { text, skipped: Math.max(0, skipped), shell: { ...shell.view } };
  }

  private async kill(sessionId: number, id: string, why = 'kill_shell stopped it'): Promise<{ shell: ShellView; forced: boolean; already: boolean }> {
    const shell = this.find(sessionId, id);
    if (shell.view.state !== 'running') return { shell: { ...shell.view }, forced: false, already: true };
    const forced = await this.stop(shell, why);
    return { shell: { ...shell.view }, forced, already: false };
  }

  /** SIGTERM to the shell's group, SIGKILL after the grace period; resolves once it has ended (true: SIGKILL was needed). */
  private async stop(shell: Shell, why: string): Promise<boolean> {
    const pid = shell.view.pid;
    if (shell.view.state !== 'running' || pid === undefined) return false;
    Object.assign(shell.view, { state: 'stopped', why });
    const signalled = new Set<number>();
    terminate(pid, shell.cgroup, signalled);
    const again = setInterval(() => terminate(pid, shell.cgroup, signalled), 100);
    let timer: NodeJS.Timeout | undefined;
    const graceful = await Promise.race([
      shell.ended.then(() => true),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(false), config.kill_grace_ms))),
    ]);
    clearTimeout(timer);
    clearInterval(again);
    if (!graceful) {
      killTree(pid, shell.cgroup);
      // Its output stays open while a process Keel could not find holds it (one that left the tree, where there is no cgroup).
      const held = await Promise.race([
        shell.ended.then(() => false),
        new Promise<boolean>((r) => (timer = setTimeout(() => r(true), config.kill_grace_ms))),
      ]);
      clearTimeout(timer);
      if (held) shell.abandon();
      await shell.ended;
    }
    return !graceful;
  }
}

/** Ends the shells of Keel processes that are gone, and removes their files (this folder's own are left). */
function sweep(dir: string): void {
  for (const entry of fs.readdirSync(dir)) {
    const owner = /^(\d+)\.(\d+)\.s\d+\.bg\d+\.(json|log)$/.exec(entry);
    if (!owner || alive(Number(owner[1]), owner[2])) continue;
    const file = path.join(dir, entry);
    if (owner[3] === 'json') {
      try {
        const record = JSON.parse(fs.readFileSync(file, 'utf8')) as { pid?: unknown; start?: unknown; cgroup?: unknown };
        const cgroup = typeof record.cgroup === 'string' ? record.cgroup : undefined;
        if (typeof record.pid === 'number' && typeof record.start === 'string' && alive(record.pid, record.start)) killTree(record.pid, cgroup);
        if (cgroup) {
          for (const n of members(cgroup)) signal(n, 'SIGKILL');
          // Empty once the killed are reaped: removed then, where Keel may.
          setTimeout(() => {
            try {
              fs.rmdirSync(cgroup);
            } catch {
              // Not Keel's to remove, or not empty yet.
            }
          }, 1000).unref();
        }
      } catch {
        // A record cut short by the crash: nothing to end by it.
      }
    }
    fs.rmSync(file, { force: true });
  }
}
