/**
 * The watcher's worker thread (main/checkpoints/watch.ts), as the source `new Worker(…, { eval: true })`
 * runs: plain CommonJS on Node's own modules, so it runs the same under tsx, vitest and a bundled app.
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
export const WATCH_WORKER = String.raw`
'use strict';
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { port, state, sentinel, limits } = workerData;
const READY = 0, ANSWERED = 1;
const roots = new Map();
const consumers = new Map();

function join(dir, name) { return dir === '' ? name : dir + '/' + name; }
function under(rel, dir) { return dir === '' || rel === dir || rel.startsWith(dir + '/'); }

function mark(r, rel, why, rescan) {
  for (const id of r.consumers) {
    const c = consumers.get(id);
    if (rescan) c.rescan = true;
    if (c.everything) continue;
    c.events++;
    if (why) c.everything = why;
    else if (c.events > limits.events) c.everything = 'the kernel may have dropped events (' + c.events + ' since the last record)';
    else if (c.dirty.add(rel).size > limits.paths) c.everything = 'more than ' + limits.paths + ' paths changed';
    if (c.everything) c.dirty = new Set();
  }
}

function breakRoot(r, why) {
  for (const w of r.watches.values()) w.watcher.close();
  r.watches.clear();
  r.broken = why;
  mark(r, '', why);
}

function unwatch(r, dir) {
  for (const [rel, w] of r.watches) if (under(rel, dir)) { w.watcher.close(); r.watches.delete(rel); }
}

function watchTree(r, rel) {
  if (r.broken || r.ignored.has(rel) || r.watches.has(rel)) return;
  const abs = rel === '' ? r.root : path.join(r.root, rel);
  let st;
  try { st = fs.lstatSync(abs); } catch { return; }
  if (!st.isDirectory()) return;
  if (r.watches.size >= limits.watches) return breakRoot(r, 'more than ' + limits.watches + ' folders to watch');
  let watcher;
  try {
    watcher = fs.watch(abs, { persistent: true }, (type, name) => onEvent(r, rel, type, name));
  } catch (e) {
    return breakRoot(r, abs + ' cannot be watched (' + (e.code || e.message) + ')');
  }
  watcher.on('error', (e) => breakRoot(r, abs + ': ' + (e.code || e.message)));
  // A repository of its own: git records nothing in it, so only its .git coming or going matters.
  const nested = rel !== '' && fs.existsSync(path.join(abs, '.git'));
  r.watches.set(rel, { watcher, ino: st.ino, nested });
  if (nested) return;
  let kids;
  try { kids = fs.readdirSync(abs, { withFileTypes: true }); } catch (e) { return breakRoot(r, abs + ' cannot be read (' + (e.code || e.message) + ')'); }
  for (const d of kids) if (d.isDirectory() && d.name !== '.git') watchTree(r, join(rel, d.name));
}

function onEvent(r, dir, type, name) {
  if (r.broken || !r.watches.has(dir)) return;
  if (name === null || name === undefined) return mark(r, '', 'an event came without a name');
  name = String(name);
  if (name === '.git') {
    // The workspace's own repository is not recorded; a folder's becoming (or ceasing to be) a repository is.
    if (dir !== '') { unwatch(r, dir); watchTree(r, dir); mark(r, dir + '/'); }
    return;
  }
  const rel = join(dir, name);
  if (type === 'rename' && !r.watches.get(dir).nested) {
    const known = r.watches.get(rel);
    let st;
    try { st = fs.lstatSync(path.join(r.root, rel)); } catch {}
    if (known && (!st || !st.isDirectory() || st.ino !== known.ino)) unwatch(r, rel);
    if (st && st.isDirectory() && !r.watches.has(rel)) {
      // A new folder: what was made in it before its watch began is found by a walk of it.
      watchTree(r, rel);
      return mark(r, rel + '/');
    }
  }
  if (name === '.gitignore') {
    stopChecker(r); // it keeps the .gitignore files it read
    return mark(r, rel, 'a .gitignore changed', true);
  }
  mark(r, rel);
}

function build(r) {
  for (const w of r.watches.values()) w.watcher.close();
  r.watches.clear();
  r.broken = undefined;
  watchTree(r, '');
  mark(r, '', r.broken || 'the workspace is watched afresh');
}

function answer() {
  let text;
  try { text = fs.readFileSync(sentinel, 'utf8'); } catch { return; }
  const [id, n] = text.split(' ').map(Number);
  if (!(n > Atomics.load(state, ANSWERED))) return;
  const c = consumers.get(id);
  let drained;
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

function reply(n, value) {
  port.postMessage({ n, value });
  if (n > Atomics.load(state, ANSWERED)) Atomics.store(state, ANSWERED, n);
  Atomics.notify(state, ANSWERED);
}

// git check-ignore --stdin, one per root, asked path by path: each answer is four NUL-ended
// fields (source, line, pattern, path), empty where no pattern matches; a '!' pattern un-ignores.
function startChecker(r) {
  const s = r.spec;
  const child = spawn(s.file, [...s.args, 'check-ignore', '--stdin', '-z', '--non-matching', '--verbose', '--no-index'], { cwd: s.cwd, env: s.env, stdio: ['pipe', 'pipe', 'ignore'] });
  const c = { child, queue: [], fields: [], rest: '' };
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (text) => {
    const parts = (c.rest + text).split('\0');
    c.rest = parts.pop();
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

function askChecker(r, n, paths) {
  if (!r.checker) r.checker = startChecker(r);
  r.checker.queue.push({ n, count: paths.length, out: [] });
  r.checker.child.stdin.write(paths.join('\0') + '\0');
}

function stopChecker(r) {
  const c = r.checker;
  if (!c) return;
  r.checker = undefined;
  for (const q of c.queue.splice(0)) reply(q.n, null);
  c.child.kill();
}

port.on('message', (m) => {
  if (m.op === 'watch') {
    let r = roots.get(m.root);
    const fresh = !r;
    if (fresh) {
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
`;
