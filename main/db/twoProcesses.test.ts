/**
 * Issue 35 class 6: one data folder, several processes. The app (here: this process, holding a session
 * as the app's pool does, with the same call) and `keel say` (a real second process) share $KEEL_HOME:
 * the second is refused a session the first drives, told which process holds it, and gets it once the
 * holder lets go or dies. Two processes writing different sessions of one database at once lose nothing.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockSession, sessionHolder } from './sessionLock.js';
import { SqliteStore } from './store.js';

const REPO = path.resolve('.');
let tmp: string;
let home: string;
let dbFile: string;

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-twoproc-')));
  home = path.join(tmp, 'home');
  fs.mkdirSync(path.join(tmp, 'ws'), { recursive: true });
  dbFile = path.join(home, 'keel.db');
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function node(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: REPO, env: { ...process.env, KEEL_HOME: home, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}
const keel = (...argv: string[]) => node([path.join(REPO, 'bin', 'keel.mjs'), ...argv]);

function newSession(store: SqliteStore, title: string): number {
  return store.createSession({
    kind: 'agent', root: path.join(tmp, 'ws'), title, mode: 'ask', systemPrompt: 'x', promptMode: 'ask', promptInstructionsHash: '', epoch: 0,
    plan: [], model: '', promptDate: '2026-12-05', createdAt: new Date().toISOString(),
  }).id;
}

describe('one data folder, several processes', { timeout: 120_000 }, () => {
  it('keel say on a session the app drives is refused, naming the app and its process; free once it lets go; a dead holder is taken over', async () => {
    const store = new SqliteStore(dbFile);
    const id = newSession(store, 'held');
    const appLock = lockSession(store.file, id, 'the Keel app');
    try {
      const refused = await keel('say', String(id), 'hello');
      expect(refused.code).toBe(1);
      expect(refused.err).toContain(`Session ${id} is in use by the Keel app (process ${process.pid}, since `);
      expect(refused.err).toContain('one process drives a session at a time');
      expect(sessionHolder(store.file, id)).toMatchObject({ pid: process.pid, what: 'the Keel app' });
    } finally {
      appLock.release();
    }
    expect(sessionHolder(store.file, id)).toBeUndefined();
    // Let go: the same command gets past the lock, to its next check (this session has no model yet).
    const free = await keel('say', String(id), 'hello');
    expect(free.err).toContain(`Session ${id} has no model yet`);
    // A holder that died (a pid no process has) is stale: taken over.
    const dead = await node(['-e', 'console.log(process.pid)']);
    fs.writeFileSync(path.join(path.dirname(dbFile), 'session-locks', `${id}.lock`), JSON.stringify({ pid: Number(dead.out), started: '1', host: os.hostname(), what: 'keel chat', since: 'then' }));
    expect((await keel('say', String(id), 'hello')).err).toContain(`Session ${id} has no model yet`);
    store.close();
  });

  it('200 interleaved writes from each of two processes to different sessions: nothing lost, the file whole', async () => {
    const store = new SqliteStore(dbFile);
    const ids = [newSession(store, 'a'), newSession(store, 'b')];
    store.close();
    const writer = (id: number) => node(['--import', 'tsx', '--input-type=module', '-e', `
      import { SqliteStore } from ${JSON.stringify(path.join(REPO, 'main/db/store.ts'))};
      const store = new SqliteStore(${JSON.stringify(dbFile)});
      for (let seq = 1; seq <= 200; seq++) {
        store.insertTurn({ sessionId: ${id}, seq, epoch: 0, status: 'done', words: 'turn ' + seq, notes: [], createdAt: new Date().toISOString() });
        if (seq % 20 === 0) await new Promise((r) => setTimeout(r, 1));
      }
      store.close();
    `]);
    const [a, b] = await Promise.all(ids.map(writer));
    expect([a.code, a.err, b.code, b.err]).toEqual([0, '', 0, '']);
    const after = new SqliteStore(dbFile);
    for (const id of ids) {
      const rows = after.db.prepare('SELECT seq, words FROM turns WHERE session_id = ? ORDER BY seq').all(id) as { seq: number; words: string }[];
      expect(rows).toHaveLength(200);
      expect(rows.every((r, i) => r.seq === i + 1 && r.words === `turn ${i + 1}`)).toBe(true);
    }
    expect(after.db.pragma('integrity_check', { simple: true })).toBe('ok');
    after.close();
  });
});
