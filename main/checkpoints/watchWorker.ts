import type { ChildProcessByStdio, spawn as Spawn } from 'node:child_process';
import type * as Fs from 'node:fs';
import type * as Path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { MessagePort } from 'node:worker_threads';
import type { SpawnSpec } from './git.js';

/**
 * The watcher's worker thread (main/checkpoints/watch.ts): `runWatchWorker` is a plain function that
 * uses nothing from its module (Node's modules are handed to it), so its compiled text runs as the
 * worker's source (`workerSource`) the same under tsx, vitest and a bundled app, while lint and the
 * type checker read it as the code it is.
 *
 * Per workspace root it watches every folder (fs.watch: one inotify watch each) but `.git`, the
 * folders git ignored when it began, and what lies below a folder holding a repository of its own
 * (that folder itself is watched, to see its `.git` come or go). A new folder is watched when its
 * event comes and reported as `path/` (a walk of it finds what was made in it before its watch
 * began); a folder moved or replaced is watched afresh. Each record keeper of a root (a consumer) gets the paths that had an
 * event since its last drain, or "everything" with the reason, where events may be missing: the
 * watch is new or was rebuilt, a folder could not be watched, the kernel's queue may have
 * overflowed (it drops events without a word to fs.watch), too many paths changed, or a .gitignore
 * changed (then `rescan`). It also answers whether git ignores untracked paths, from a
 * `git check-ignore --stdin` per root that it keeps (restarted when a .gitignore changes).
 */
/**
 * What changed in a workspace since the last drain: the paths (relative, `/` between parts) that
 * had an event, or that only a full walk can tell, and why. `rescan`: what git ignores may have
 * changed (a .gitignore did), so the folders watched should be worked out again.
 */
export type Drained = { paths: string[] } | { everything: string; rescan?: boolean };

/** What the main thread hands the worker (Worker's workerData). */
export interface WatchWorkerData {
  port: MessagePort;
  state: Int32Array;
  sentinel: string;
  limits: { events: number; watches: number; paths: number };
}

/** Node's modules the worker uses, handed in so that the function refers to nothing outside it. */
export interface WorkerNode {
  fs: typeof Fs;
  path: typeof Path;
  spawn: typeof Spawn;
}

/** What the main thread asks (watch.ts WatchService). */
export type Message =
  | { op: 'watch'; id: number; n: number; root: string; ignored: string[]; checkIgnore: SpawnSpec }
  | { op: 'ignored'; id: number; n: number; paths: string[] }
  | { op: 'rebuild'; id: number; ignored: string[] }
  | { op: 'close'; id: number };

interface Watch { watcher: Fs.FSWatcher; ino: number; nested: boolean }
interface Checker {
  child: ChildProcessByStdio<Writable, Readable, null>;
  queue: { n: number; count: number; out: boolean[] }[];
  fields: string[];
  rest: string;
}
interface Root {
  root: string;
  ignored: Set<string>;
  watches: Map<string, Watch>;
  consumers: Set<number>;
  broken: string | undefined;
  spec: SpawnSpec;
  checker: Checker | undefined;
}
interface Consumer { root: Root; dirty: Set<string>; events: number; everything: string | undefined; rescan: boolean }

/** The worker's whole program. */
export function runWatchWorker({ port, state, sentinel, limits }: WatchWorkerData, { fs, path, spawn }: WorkerNode): void {
  const errorText = (e: unknown): string => String((e as NodeJS.ErrnoException).code || (e as Error).message);
  const READY = 0, ANSWERED = 1;
  const roots = new Map<string, Root>();
  const consumers = new Map<number, Consumer>();

  function join(dir: string, name: string): string { return dir === '' ? name : dir + '/' + name; }
  function under(rel: string, dir: string): boolean { return dir === '' || rel === dir || rel.startsWith(dir + '/'); }

  function mark(r: Root, rel: string, why?: string, rescan?: boolean): void {
    for (const id of r.consumers) {
      const c = consumers.get(id)!;
      if (rescan) c.rescan = true;
      if (c.everything) continue;
      c.events++;
      if (why) c.everything = why;
      else if (c.events > limits.events) c.everything = 'the kernel may have dropped events (' + c.events + ' since the last record)';
      else if (c.dirty.add(rel).size > limits.paths) c.everything = 'more than ' + limits.paths + ' paths changed';
      if (c.everything) c.dirty = new Set();
    }
  }

  function breakRoot(r: Root, why: string): void {
    for (const w of r.watches.values()) w.watcher.close();
    r.watches.clear();
    r.broken = why;
    mark(r, '', why);
  }

  function unwatch(r: Root, dir: string): void {
    for (const [rel, w] of r.watches) if (under(rel, dir)) { w.watcher.close(); r.watches.delete(rel); }
  }

  function watchTree(r: Root, rel: string): void {
    if (r.broken || r.ignored.has(rel) || r.watches.has(rel)) return;
    const abs = rel === '' ? r.root : path.join(r.root, rel);
    let st: import('node:fs').Stats;
    try { st = fs.lstatSync(abs); } catch { return; }
    if (!st.isDirectory()) return;
    if (r.watches.size >= limits.watches) return breakRoot(r, 'more than ' + limits.watches + ' folders to watch');
    let watcher: import('node:fs').FSWatcher;
    try {
      watcher = fs.watch(abs, { persistent: true }, (type, name) => onEvent(r, rel, type, name));
    } catch (e) {
      return breakRoot(r, abs + ' cannot be watched (' + errorText(e) + ')');
    }
    watcher.on('error', (e) => breakRoot(r, abs + ': ' + errorText(e)));
    // A repository of its own: git records nothing in it, so only its .git coming or going matters.
    const nested = rel !== '' && fs.existsSync(path.join(abs, '.git'));
    r.watches.set(rel, { watcher, ino: st.ino, nested });
    if (nested) return;
    let kids: import('node:fs').Dirent[];
    try { kids = fs.readdirSync(abs, { withFileTypes: true }); } catch (e) { return breakRoot(r, abs + ' cannot be read (' + errorText(e) + ')'); }
    for (const d of kids) if (d.isDirectory() && d.name !== '.git') watchTree(r, join(rel, d.name));
  }

  function onEvent(r: Root, dir: string, type: string, name: string | Buffer | null | undefined): void {
    if (r.broken || !r.watches.has(dir)) return;
    if (name === null || name === undefined) return mark(r, '', 'an event came without a name');
    const named = String(name);
    if (named === '.git') {
      // The workspace's own repository is not recorded; a folder's becoming (or ceasing to be) a repository is.
      if (dir !== '') { unwatch(r, dir); watchTree(r, dir); mark(r, dir + '/'); }
      return;
    }
    const rel = join(dir, named);
    if (type === 'rename' && !r.watches.get(dir)!.nested) {
      const known = r.watches.get(rel);
      let st: import('node:fs').Stats | undefined;
      try { st = fs.lstatSync(path.join(r.root, rel)); } catch { st = undefined; }
      if (known && (!st || !st.isDirectory() || st.ino !== known.ino)) unwatch(r, rel);
      if (st && st.isDirectory() && !r.watches.has(rel)) {
        // A new folder: what was made in it before its watch began is found by a walk of it.
        watchTree(r, rel);
        return mark(r, rel + '/');
      }
    }
    if (named === '.gitignore') {
      stopChecker(r); // it keeps the .gitignore files it read
      return mark(r, rel, 'a .gitignore changed', true);
    }
    mark(r, rel);
  }

  function build(r: Root): void {
    for (const w of r.watches.values()) w.watcher.close();
    r.watches.clear();
    r.broken = undefined;
    watchTree(r, '');
    mark(r, '', r.broken || 'the workspace is watched afresh');
  }

  function answer(): void {
    let text: string;
    try { text = fs.readFileSync(sentinel, 'utf8'); } catch { return; }
    const [id, n] = text.split(' ').map(Number);
    if (!(n > Atomics.load(state, ANSWERED))) return;
    const c = consumers.get(id);
    let drained: Drained;
    if (!c) drained = { everything: 'the watcher is starting' };
    else {
      drained = c.everything ? { everything: c.everything, ...(c.rescan ? { rescan: true } : {}) } : { paths: [...c.dirty] };
      c.dirty = new Set();
      c.events = 0;
      c.rescan = false;
      c.everything = c.root.broken;
    }
    reply(n, drained);
  }

  function reply(n: number, value: unknown): void {
    port.postMessage({ n, value });
    if (n > Atomics.load(state, ANSWERED)) Atomics.store(state, ANSWERED, n);
    Atomics.notify(state, ANSWERED);
  }

  // git check-ignore --stdin, one per root, asked path by path: each answer is four NUL-ended
  // fields (source, line, pattern, path), empty where no pattern matches; a '!' pattern un-ignores.
  function startChecker(r: Root): Checker {
    const s = r.spec;
    const child = spawn(s.file, [...s.args, 'check-ignore', '--stdin', '-z', '--non-matching', '--verbose', '--no-index'], { cwd: s.cwd, env: s.env, stdio: ['pipe', 'pipe', 'ignore'] });
    const c: Checker = { child, queue: [], fields: [], rest: '' };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => {
      const parts = (c.rest + text).split('\0');
      c.rest = parts.pop()!;
      for (const f of parts) {
        c.fields.push(f);
        if (c.fields.length < 4) continue;
        const pattern = c.fields[2];
        c.fields = [];
        const q = c.queue[0];
        if (!q) continue;
        q.out.push(pattern !== '' && !pattern.startsWith('!'));
        if (q.out.length === q.count) { c.queue.shift(); reply(q.n, q.out); }
      }
    });
    const fail = () => { if (r.checker === c) r.checker = undefined; for (const q of c.queue.splice(0)) reply(q.n, null); };
    child.on('error', fail);
    child.on('exit', fail);
    child.stdin.on('error', fail);
    return c;
  }

  function askChecker(r: Root, n: number, paths: string[]): void {
    if (!r.checker) r.checker = startChecker(r);
    r.checker!.queue.push({ n, count: paths.length, out: [] });
    r.checker!.child.stdin.write(paths.join('\0') + '\0');
  }

  function stopChecker(r: Root): void {
    const c = r.checker;
    if (!c) return;
    r.checker = undefined;
    for (const q of c.queue.splice(0)) reply(q.n, null);
    c.child.kill();
  }

  port.on('message', (m: Message) => {
    if (m.op === 'watch') {
      let r = roots.get(m.root);
      const fresh = !r;
      if (!r) {
        r = { root: m.root, ignored: new Set(m.ignored), watches: new Map(), consumers: new Set(), broken: undefined, spec: m.checkIgnore, checker: undefined };
        roots.set(m.root, r);
      }
      r.consumers.add(m.id);
      consumers.set(m.id, { root: r, dirty: new Set(), events: 0, everything: 'the watch is new', rescan: false });
      if (fresh) watchTree(r, '');
      return reply(m.n, true);
    }
    const c = consumers.get(m.id);
    if (!c) return;
    const r = c.root;
    if (m.op === 'close') {
      consumers.delete(m.id);
      r.consumers.delete(m.id);
      if (r.consumers.size === 0) { for (const w of r.watches.values()) w.watcher.close(); stopChecker(r); roots.delete(r.root); }
    } else if (m.op === 'ignored') {
      askChecker(r, m.n, m.paths);
    } else if (m.op === 'rebuild') {
      r.ignored = new Set(m.ignored);
      build(r);
    }
  });

  fs.watch(sentinel, { persistent: true }, answer);
  Atomics.store(state, READY, 1);
}

/**
 * The source a `new Worker(…, { eval: true })` runs: `runWatchWorker`'s compiled text, called with
 * the worker's data and Node's modules. (`__name` is esbuild's keepNames helper, which tsx adds to
 * named functions; inside the worker it keeps nothing.)
 */
export function workerSource(): string {
  return [
    "'use strict';",
    'const __name = (f) => f;',
    `(${runWatchWorker.toString()})(require('node:worker_threads').workerData, { fs: require('node:fs'), path: require('node:path'), spawn: require('node:child_process').spawn });`,
  ].join('\n');
}
