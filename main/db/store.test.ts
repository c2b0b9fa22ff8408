import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore, StoreError } from './store.js';

let tmp: string;
beforeEach(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-store-')); });
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('SqliteStore', () => {
  it('creates a WAL database with the current schema', () => {
    const store = new SqliteStore(path.join(tmp, 'k.db'));
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('user_version', { simple: true })).toBe(3);
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
