import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { SpawnSpec } from './git.js';
import { workerSource, type Drained, type WatchWorkerData } from './watchWorker.js';

export type { Drained };


/** One record keeper's view of a watched workspace. */
export interface WorkspaceWatch {
  /** Every event the kernel queued before this call, synchronously. */
  drain(): Drained;
  /**
   * Whether git ignores each of these untracked paths (one `git check-ignore --stdin` that stays,
   * on the worker, asked without a process of its own); undefined where it cannot say.
   */
  ignored(paths: readonly string[]): boolean[] | undefined;
  /** Watches the workspace afresh, leaving out the folders git ignores now; the next drain after it is everything. */
  rebuild(ignored: readonly string[]): void;
  close(): void;
}

/** The longest a drain waits for the watcher: past it, that watch says everything from then on. */
const ANSWER_MS = 2000;
const READY = 0;
const ANSWERED = 1;

/**
 * Watches workspace folders with inotify, on one worker thread for the whole process, so that a
 * record finds what changed without a walk of every file. Linux only (elsewhere, and where the
 * watcher cannot say, the records walk). The worker reads events while the main thread runs git
 * or waits for a command, so the kernel's queue does not fill behind a busy main thread.
 *
 * A drain is a barrier: the main thread writes a sentinel file the worker watches; the kernel
 * queues that event after every event before it, so when the worker sees it, it has seen them all,
 * and it answers through a message port the main thread reads synchronously (Atomics.wait, then
 * receiveMessageOnPort).
 */
class WatchService {
  private readonly port: MessagePort;
  private readonly state = new Int32Array(new SharedArrayBuffer(8));
  private readonly sentinel: string;
  private asked = 0;
  private nextId = 1;
  private readonly dropped = new FinalizationRegistry<number>((id) => this.post({ op: 'close', id }));

  constructor() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-watch-'));
    this.sentinel = path.join(dir, 'sentinel');
    fs.writeFileSync(this.sentinel, '');
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    const { port1, port2 } = new MessageChannel();
    const limits = {
      // A queue that overflowed held at least this many events; the kernel drops the rest unsaid.
      events: Math.floor(procNumber('/proc/sys/fs/inotify/max_queued_events', 16384) / 2),
      watches: Math.min(100_000, Math.floor(procNumber('/proc/sys/fs/inotify/max_user_watches', 8192) / 2)),
      // Past this many paths a walk is cheaper than looking at each.
      paths: 2000,
    };
    const workerData: WatchWorkerData = { port: port2, state: this.state, sentinel: this.sentinel, limits };
    const worker = new Worker(workerSource(), { eval: true, workerData, transferList: [port2] });
    worker.on('error', () => Atomics.store(this.state, READY, 0));
    worker.unref();
    port1.unref();
    this.port = port1;
  }

  add(root: string, ignored: readonly string[], checkIgnore: SpawnSpec): WorkspaceWatch {
    const id = this.nextId++;
    let broken: string | undefined;
    // Waited for: its folders are watched before the first record, so only that one walks.
    const n = ++this.asked;
    this.post({ op: 'watch', id, n, root, ignored: [...ignored], checkIgnore });
    if (this.answer<boolean>(n) === undefined) broken = NO_ANSWER;
    const watch: WorkspaceWatch = {
      drain: () => {
        if (broken) return { everything: broken };
        const d = this.drain(id);
        if ('everything' in d && d.everything === NO_ANSWER) broken = NO_ANSWER;
        return d;
      },
      ignored: (paths) => {
        if (broken || paths.length === 0) return broken ? undefined : [];
        const n = ++this.asked;
        this.post({ op: 'ignored', id, n, paths: [...paths] });
        const answer = this.answer<boolean[] | null>(n);
        return answer ?? undefined;
      },
      rebuild: (now) => this.post({ op: 'rebuild', id, ignored: [...now] }),
      close: () => {
        this.dropped.unregister(watch);
        this.post({ op: 'close', id });
      },
    };
    this.dropped.register(watch, id, watch);
    return watch;
  }

  private drain(id: number): Drained {
    if (Atomics.load(this.state, READY) === 0) return { everything: 'the watcher is starting' };
    const n = ++this.asked;
    fs.writeFileSync(this.sentinel, `${id} ${n}`);
    return this.answer<Drained>(n) ?? { everything: NO_ANSWER };
  }

  /** Waits for the worker's answer to request `n` (undefined: none in time). */
  private answer<T>(n: number): T | undefined {
    const deadline = Date.now() + ANSWER_MS;
    for (let seen = Atomics.load(this.state, ANSWERED); seen < n; seen = Atomics.load(this.state, ANSWERED)) {
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      Atomics.wait(this.state, ANSWERED, seen, left);
    }
    for (let m = receiveMessageOnPort(this.port); m; m = receiveMessageOnPort(this.port)) {
      const answer = m.message as { n: number; value: T };
      if (answer.n === n) return answer.value;
    }
    return undefined;
  }

  private post(message: object): void {
    this.port.postMessage(message);
  }
}

const NO_ANSWER = 'the watcher did not answer';

let service: WatchService | undefined;

/** Starts watching a workspace (undefined where this system has no watcher Keel uses). */
export function watchWorkspace(root: string, ignored: readonly string[], checkIgnore: SpawnSpec): WorkspaceWatch | undefined {
  if (process.platform !== 'linux') return undefined;
  service ??= new WatchService();
  return service.add(root, ignored, checkIgnore);
}

function procNumber(file: string, fallback: number): number {
  try {
    const n = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isFinite(n) && n > 0 ? n : fallback;
  } catch {
    return fallback;
  }
}
