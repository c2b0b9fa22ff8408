import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { MIGRATIONS } from './schema.js';
import { SqliteStore, StoreError } from './store.js';

let tmp: string;
beforeEach(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-store-')); });
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('SqliteStore', () => {
  it('creates a WAL database with the current schema', () => {
    const store = new SqliteStore(path.join(tmp, 'k.db'));
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    store.close();
  });

  it('moves a schema-3 database on: its sessions keep every field and have no tool list until first opened', () => {
    const file = path.join(tmp, 'old.db');
    const old = new Database(file);
    old.pragma('journal_mode = WAL');
    MIGRATIONS.slice(0, 3).forEach((sql) => old.exec(sql as string)); // the first three are SQL
    old.pragma('user_version = 3');
    old.prepare(`INSERT INTO sessions (kind, root, title, mode, system_prompt, prompt_mode, prompt_instructions_hash, created_at, prompt_date)
                 VALUES ('agent', '/w', 't', 'ask', 'SYSTEM', 'ask', '', '2026-11-30T10:00:00Z', '2026-11-30')`).run();
    old.close();
    const store = new SqliteStore(file);
    const row = store.getSession(1)!;
    expect(row).toMatchObject({ systemPrompt: 'SYSTEM', mode: 'ask', serverInstructions: {} });
    expect(row.tools).toBeUndefined();
    store.updateSession(1, { tools: [{ name: 'read', description: 'Reads.', parameters: { type: 'object' } }] });
    expect(store.getSession(1)!.tools).toEqual([{ name: 'read', description: 'Reads.', parameters: { type: 'object' } }]);
    store.close();
  });

  it('moves the server and checkpoint columns of an older database into the engine record, request by request', () => {
    const file = path.join(tmp, 'engine.db');
    const old = new Database(file);
    // The schema before the migration that made the engine record (the one that adds its column).
    const before = MIGRATIONS.findIndex((m) => typeof m === 'string' && m.includes('ADD COLUMN engine'));
    for (const migration of MIGRATIONS.slice(0, before)) {
      if (typeof migration === 'string') old.exec(migration);
      else migration(old);
    }
    old.pragma(`user_version = ${before}`);
    old.prepare(`INSERT INTO sessions (kind, root, title, mode, system_prompt, prompt_mode, prompt_instructions_hash, created_at, prompt_date)
                 VALUES ('agent', '/w', 't', 'ask', 'S', 'ask', '', 'now', '2026-11-30')`).run();
    const insert = old.prepare(`INSERT INTO requests (session_id, kind, model, prompt_tokens, reused_tokens, new_tokens, output_tokens, cached_before,
                 prefill_ms, generation_ms, system_sha, tools_sha, created_at, server, checkpoint) VALUES (1, 'turn', 'm', 9, 0, 9, 1, 0, 1, 1, 's', 't', 'now', ?, ?)`);
    const server = { url: 'http://127.0.0.1:8080', cachedTokens: null, change: { message: 2, byte: 17 } };
    const checkpoint = { restoredAt: 4211, reread: 3 };
    insert.run(JSON.stringify(server), null);
    insert.run(null, JSON.stringify(checkpoint));
    insert.run(JSON.stringify(server), JSON.stringify(checkpoint));
    insert.run(null, null);
    old.close();
    const store = new SqliteStore(file);
    expect(store.listRequests(1).map((r) => r.engine)).toEqual([{ server }, { checkpoint }, { server, checkpoint }, undefined]);
    const columns = (store.db.prepare('PRAGMA table_info(requests)').all() as { name: string }[]).map((c) => c.name);
    expect(columns).toContain('engine');
    expect(columns).not.toContain('server');
    expect(columns).not.toContain('checkpoint');
    store.close();
  });

  it('stores attachments with their result in one commit, and drops them with the session', () => {
    const store = new SqliteStore(path.join(tmp, 'a.db'));
    const s = store.createSession({
      kind: 'agent', root: '/w', title: '', mode: 'auto', systemPrompt: 's', promptMode: 'auto', promptInstructionsHash: '', epoch: 0, plan: [],
      model: '', promptDate: '2026-11-30', createdAt: '2026-11-30T10:00:00Z', tools: [],
    });
    const turn = store.insertTurn({ sessionId: s.id, seq: 1, epoch: 0, status: 'open', notes: [], createdAt: 'now' });
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);
    const row = { sessionId: s.id, number: 1, turnId: turn.id, tool: 'mcp__e__img', args: '{}', kind: 'full' as const,
      pathGiven: undefined, pathResolved: undefined, fileHash: undefined, lineStart: undefined, lineEnd: undefined, lineTotal: undefined,
      files: undefined, argsKey: undefined, body: 'b', inserted: 'i', createdAt: 'now' };
    store.insertResult(row, [{ mimeType: 'image/png', data: png }, { mimeType: 'application/gzip', data: Buffer.from('zz'), uri: 'demo://x' }]);
    expect(store.listAttachments(s.id, 1)).toEqual([
      { mimeType: 'image/png', data: png }, { mimeType: 'application/gzip', data: Buffer.from('zz'), uri: 'demo://x' },
    ]);
    // A result that cannot be stored takes its attachments with it: nothing half-stored.
    expect(() => store.insertResult(row, [{ mimeType: 'text/plain', data: Buffer.from('again') }])).toThrow();
    expect(store.listAttachments(s.id, 1)).toHaveLength(2);
    store.deleteSession(s.id);
    expect(store.listAttachments(s.id, 1)).toEqual([]);
    store.close();
  });

  it('keeps a subagent\'s session with its parent named, and deletes it (and its rows) with the parent', () => {
    const store = new SqliteStore(path.join(tmp, 'p.db'));
    const parent = store.createSession(sessionRow());
    const child = store.createSession({ ...sessionRow(), parentId: parent.id });
    const other = store.createSession(sessionRow());
    store.insertTurn({ sessionId: child.id, seq: 1, epoch: 0, status: 'open', notes: [], createdAt: 'now' });
    expect(store.getSession(child.id)?.parentId).toBe(parent.id);
    expect(store.getSession(parent.id)).not.toHaveProperty('parentId');
    store.deleteSession(parent.id);
    expect(store.listSessions().map((s) => s.id)).toEqual([other.id]);
    expect(store.listTurns(child.id)).toEqual([]);
    store.close();
  });

  it('reports a corrupt database with its path and leaves its bytes untouched', () => {
    const file = path.join(tmp, 'corrupt.db');
    const garbage = Buffer.from('this is not a database, but a person\'s file\n'.repeat(200));
    fs.writeFileSync(file, garbage);
    expect(() => new SqliteStore(file)).toThrow(StoreError);
    expect(() => new SqliteStore(file)).toThrow(file);
    expect(fs.readFileSync(file).equals(garbage)).toBe(true);
  });

  it('refuses a database from a newer schema without touching it', () => {
    const file = path.join(tmp, 'new.db');
    const store = new SqliteStore(file);
    store.db.pragma('user_version = 99');
    store.close();
    expect(() => new SqliteStore(file)).toThrow(/newer Keel/);
  });

  it('never gives a deleted session\'s id again, nor its turns\', replies\' or requests\' ids', () => {
    const store = new SqliteStore(path.join(tmp, 'k.db'));
    const first = store.createSession(sessionRow());
    const second = store.createSession(sessionRow());
    const turn = store.insertTurn({ sessionId: second.id, seq: 1, epoch: 0, status: 'done', notes: [], createdAt: 'now' });
    const reply = store.insertReply({ sessionId: second.id, turnId: turn.id, seq: 1, text: 'hi', calls: [], createdAt: 'now' });
    const request = store.insertRequest(requestRow(second.id));
    store.deleteSession(second.id);
    const third = store.createSession(sessionRow());
    expect([first.id, second.id, third.id]).toEqual([1, 2, 3]);
    expect(store.insertTurn({ sessionId: third.id, seq: 1, epoch: 0, status: 'done', notes: [], createdAt: 'now' }).id).toBe(turn.id + 1);
    expect(store.insertReply({ sessionId: third.id, turnId: turn.id + 1, seq: 1, text: 'hi', calls: [], createdAt: 'now' }).id).toBe(reply.id + 1);
    expect(store.insertRequest(requestRow(third.id)).id).toBe(request.id + 1);
    store.close();
    // Nor after a restart.
    const again = new SqliteStore(path.join(tmp, 'k.db'));
    again.deleteSession(third.id);
    expect(again.createSession(sessionRow()).id).toBe(4);
    again.close();
  });

  it('moves a database of the previous schema to this one, every row, id and reference kept', () => {
    const file = path.join(tmp, 'old.db');
    const old = new Database(file);
    old.pragma('journal_mode = WAL');
    MIGRATIONS.slice(0, 3).forEach((sql) => old.exec(sql as string)); // the first three are SQL
    old.pragma('user_version = 3');
    old.exec(`
      INSERT INTO sessions (id, kind, root, title, mode, system_prompt, prompt_mode, prompt_instructions_hash, epoch, plan, model, created_at, prompt_date)
        VALUES (1, 'agent', '/w', 'kept', 'ask', 'SYSTEM', 'ask', 'h', 1, '[{"text":"x","status":"todo"}]', '/m.gguf', 'then', '2026-11-30'),
               (5, 'chat', '/w2', 'five', 'auto', 'S2', 'auto', '', 0, '[]', '', 'then', '');
      INSERT INTO turns (id, session_id, seq, epoch, status, words, notes, created_at) VALUES (9, 5, 1, 0, 'done', 'hello', '[]', 'then');
      INSERT INTO results (session_id, number, turn_id, tool, args, kind, body, inserted, created_at) VALUES (5, 1, 9, 'list', '{}', 'full', 'a', '[#0001]
a', 'then');
      INSERT INTO replies (id, session_id, turn_id, seq, text, calls, created_at, raw) VALUES (3, 5, 9, 1, 'ok', '[]', 'then', 'RAW');
      INSERT INTO requests (id, session_id, kind, model, prompt_tokens, reused_tokens, new_tokens, output_tokens, cached_before, prefill_ms,
        generation_ms, system_sha, tools_sha, created_at, turn, answers, context_size)
        VALUES (7, 5, 'turn', '/m', 10, 0, 10, 2, 0, 1.5, 2.5, 's', 't', 'then', 1, 'person', 4096);
    `);
    old.close();

    const store = new SqliteStore(file);
    expect(store.listSessions().map((s) => [s.id, s.title, s.plan, s.promptDate, s.planNotePending])).toEqual([
      [1, 'kept', [{ text: 'x', status: 'todo' }], '2026-11-30', false], [5, 'five', [], '', false],
    ]);
    expect(store.listTurns(5).map((t) => [t.id, t.words])).toEqual([[9, 'hello']]);
    expect(store.listReplies(5).map((r) => [r.id, r.raw])).toEqual([[3, 'RAW']]);
    expect(store.listRequests(5).map((r) => [r.id, r.contextSize, r.answers])).toEqual([[7, 4096, 'person']]);
    expect(store.getResult(5, 1)?.inserted).toBe('[#0001]\na');
    // The references still hold: deleting the session takes its rows with it, and ids go on past the highest.
    store.deleteSession(5);
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM results').get()).toEqual({ n: 0 });
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM turns').get()).toEqual({ n: 0 });
    expect(store.createSession(sessionRow()).id).toBe(6);
    store.close();
  });
});

function sessionRow() {
  return {
    kind: 'agent' as const, root: '/w', title: 't', mode: 'ask' as const, systemPrompt: 'S', promptMode: 'ask' as const,
    promptInstructionsHash: '', epoch: 0, plan: [], model: '', promptDate: '2026-11-30', createdAt: 'now',
  };
}

function requestRow(sessionId: number) {
  return {
    sessionId, kind: 'turn' as const, model: '/m', promptTokens: 1, reusedTokens: 0, newTokens: 1, outputTokens: 1, cachedBefore: 0,
    prefillMs: 1, generationMs: 1, systemSha: 's', toolsSha: 't', createdAt: 'now',
  };
}
