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
    expect(store.db.pragma('user_version', { simple: true })).toBe(4);
    store.close();
  });

  it('moves a schema-3 database on: its sessions keep every field and have no tool list until first opened', () => {
    const file = path.join(tmp, 'old.db');
    const old = new Database(file);
    old.pragma('journal_mode = WAL');
    MIGRATIONS.slice(0, 3).forEach((sql) => old.exec(sql));
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
});
