/**
 * Trust, 3: a corrupt database. A database Keel cannot use is refused with a StoreError naming its
 * absolute path, and its bytes are left exactly as they were: a truncated file, random bytes, a
 * valid database with a page overwritten, a file Keel may not read.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../test/prng.js';
import { SqliteStore, StoreError } from './store.js';

const PAGE = 4096;
let tmp: string;
/** A valid Keel database (WAL, as Keel makes it) of several pages, closed. */
let good: string;
/** The same, switched to a rollback journal (as a copy made by other tools may be). */
let goodRollback: string;
let n = 0;

const sha = (file: string): string => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const seeded = (seed: number, length: number): Buffer => {
  const rng = new Rng(seed);
  return Buffer.from(Array.from({ length }, () => rng.int(0, 255)));
};

function makeDatabase(file: string): void {
  const store = new SqliteStore(file);
  const s = store.createSession({
    kind: 'agent', root: '/w/proj', title: 'corrupt', mode: 'auto', systemPrompt: 'system', promptMode: 'auto',
    promptInstructionsHash: '', epoch: 0, plan: [], model: '', promptDate: '2026-11-30', createdAt: '2026-11-30T10:00:00.000Z',
  });
  const turn = store.insertTurn({ sessionId: s.id, seq: 1, epoch: 0, status: 'done', notes: [], createdAt: '2026-11-30T10:00:00.000Z' });
  for (let i = 1; i <= 150; i++) {
    store.insertResult({
      sessionId: s.id, number: i, turnId: turn.id, tool: 'read', args: '{}', kind: 'full', pathGiven: undefined, pathResolved: undefined,
      fileHash: undefined, lineStart: undefined, lineEnd: undefined, lineTotal: undefined, files: undefined, argsKey: undefined,
      body: `body ${i} `.repeat(60), inserted: `[#${i}]\n` + `body ${i} `.repeat(60), createdAt: '2026-11-30T10:00:00.000Z',
    });
  }
  store.close();
}

/** A fresh copy of `src` under a new name, changed by `spoil`. */
function spoiled(src: string, spoil: (file: string) => void): string {
  const file = path.join(tmp, `case-${++n}.db`);
  fs.copyFileSync(src, file);
  spoil(file);
  return file;
}

function overwritePage(page: number, seed: number) {
  return (file: string): void => {
    // Page 1 starts with the 100-byte file header; keep it so SQLite gets past "not a database".
    const from = (page - 1) * PAGE + (page === 1 ? 100 : 0);
    const bytes = seeded(seed, (page === 1 ? PAGE - 100 : PAGE));
    const fd = fs.openSync(file, 'r+');
    try {
      fs.writeSync(fd, bytes, 0, bytes.length, from);
    } finally {
      fs.closeSync(fd);
    }
  };
}

/** Opening `file` throws a StoreError naming its absolute path, and the file's bytes do not change. */
function expectRefusedUntouched(file: string): StoreError {
  const before = sha(file);
  const size = fs.statSync(file).size;
  let caught: unknown;
  try {
    new SqliteStore(file).close();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(StoreError);
  expect((caught as Error).message).toContain(path.resolve(file));
  expect(fs.statSync(file).size).toBe(size);
  expect(sha(file)).toBe(before);
  return caught as StoreError;
}

function pageOf(file: string, table: string): { root: number; pages: number } {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const root = (db.prepare('SELECT rootpage FROM sqlite_master WHERE name = ?').get(table) as { rootpage: number }).rootpage;
    return { root, pages: db.pragma('page_count', { simple: true }) as number };
  } finally {
    db.close();
  }
}

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-corrupt-')));
  good = path.join(tmp, 'good.db');
  makeDatabase(good);
  goodRollback = path.join(tmp, 'good-rollback.db');
  makeDatabase(goodRollback);
  const db = new Database(goodRollback);
  db.pragma('journal_mode = DELETE');
  db.close();
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('a corrupt database is refused, naming its path, and left byte for byte as it was', () => {
  it('the untouched databases open (the control)', () => {
    expect(fs.statSync(good).size).toBeGreaterThan(10 * PAGE);
    for (const file of [good, goodRollback]) new SqliteStore(spoiled(file, () => {})).close();
  });

  it.each([
    ['inside the 100-byte header', () => 50],
    ['just after the header', () => 100],
    ['in the middle of a page', (size: number) => Math.floor(size / 2) + 123],
    ['on a page boundary', () => 3 * PAGE],
    ['one page short', (size: number) => size - PAGE],
  ])('a truncated database: %s', (_name, length) => {
    const file = spoiled(good, (f) => fs.truncateSync(f, length(fs.statSync(f).size)));
    expectRefusedUntouched(file);
  });

  it.each([
    ['one page of random bytes', 1, PAGE],
    ['ten pages of random bytes', 2, 10 * PAGE],
    ['a few random bytes', 3, 37],
  ])('%s', (_name, seed, length) => {
    const file = path.join(tmp, `random-${seed}.db`);
    fs.writeFileSync(file, seeded(seed, length));
    expect(expectRefusedUntouched(file).message).toMatch(/not a database/);
  });

  it('random bytes behind a valid SQLite header', () => {
    const file = path.join(tmp, 'random-header.db');
    fs.writeFileSync(file, Buffer.concat([Buffer.from('SQLite format 3\0'), seeded(4, 3 * PAGE)]));
    expectRefusedUntouched(file);
  });

  it.each([
    ['page 1 (the schema, after the header)', () => 1],
    ['page 2', () => 2],
    ["the results table's root page", (f: string) => pageOf(f, 'results').root],
    ['the last page', (f: string) => pageOf(f, 'results').pages],
  ])('a valid database with %s overwritten', (_name, page) => {
    const file = spoiled(good, (f) => overwritePage(page(f), 7)(f));
    expectRefusedUntouched(file);
  });

  it.skipIf(process.getuid?.() === 0)('a database Keel may not read', () => {
    const file = spoiled(good, () => {});
    const before = sha(file);
    fs.chmodSync(file, 0o000);
    try {
      expect(() => new SqliteStore(file)).toThrow(StoreError);
      expect(() => new SqliteStore(file)).toThrow(path.resolve(file));
    } finally {
      fs.chmodSync(file, 0o600);
    }
    expect(sha(file)).toBe(before);
  });

  // Once bugs in main/db/store.ts: each case below failed before the constructor checked for them.

  it('a database truncated to zero bytes is refused, not taken for a new one', () => {
    // SQLite reads an empty file as an empty database: the constructor migrates into it, so every
    // session is silently gone and the file no longer holds what it held.
    expectRefusedUntouched(spoiled(good, (f) => fs.truncateSync(f, 0)));
  });

  it('a database cut short inside its last page is refused (its lost tail would read as NUL bytes)', () => {
    // quick_check passes: the missing bytes fall in a row's payload, which SQLite zero-fills on a short
    // read. A size that is not a whole number of pages gives it away.
    expectRefusedUntouched(spoiled(good, (f) => fs.truncateSync(f, fs.statSync(f).size - 1000)));
  });

  it('a rollback-journal database with a bad page is refused before anything rewrites it', () => {
    const { root } = pageOf(goodRollback, 'results');
    expectRefusedUntouched(spoiled(goodRollback, overwritePage(root, 8)));
  });

  it('a refused database leaves no -wal/-shm files behind', () => {
    const { root } = pageOf(good, 'results');
    const file = spoiled(good, overwritePage(root, 9));
    expectRefusedUntouched(file);
    expect(fs.readdirSync(tmp).filter((name) => name.startsWith(path.basename(file) + '-'))).toEqual([]);
  });
});
