import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type {
  CompactionRow, ReplyRow, RequestRow, ResultRow, SessionRow, SessionStore, TurnRow,
} from '../core/state/types.js';
import type { Attachment } from '../core/tools/types.js';
import { MIGRATIONS } from './schema.js';

/** A database Keel cannot use: reported with its path, and never overwritten. */
export class StoreError extends Error {}

export interface StoreOptions {
  /** better-sqlite3's native binding, when the default one is built for another ABI (Electron). */
  nativeBinding?: string;
}

type Row = Record<string, unknown>;

/** How long a write waits for another process's transaction on the same database before it fails. */
const BUSY_TIMEOUT_MS = 15_000;

/**
 * The session store on a real SQLite file (WAL). Every write is its own committed transaction,
 * so what a caller was told is stored survives a crash.
 */
export class SqliteStore implements SessionStore {
  readonly db: Database.Database;

  constructor(readonly file: string, options: StoreOptions = {}) {
    const where = path.resolve(file);
    const refuse = (why: string) => new StoreError(`Keel cannot use the database ${where}: ${why}. It was left untouched.`);
    if (!fs.existsSync(file)) createEmpty(file, options);
    const size = fs.statSync(file).size;
    const pageSize = readPageSize(file);
    // A file cut short inside a page would open, with the missing bytes read as zeros.
    if (size === 0 || pageSize === undefined || size % pageSize !== 0) throw refuse('the file is empty, cut short, or not a database (no whole SQLite pages)');
    let db: Database.Database | undefined;
    try {
      // Another Keel process (the app, keel run…) may be writing the same file: wait for its commit rather than fail.
      db = new Database(file, { nativeBinding: options.nativeBinding, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
      // Checked before anything could write to it (switching the journal mode rewrites the header).
      const check = db.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new Error(`integrity check says: ${String(check)}`);
      db.pragma('journal_mode = WAL');
      // Every commit reaches the disk before a result is handed on, power loss included.
      db.pragma('synchronous = FULL');
      this.db = db;
      this.migrate();
      db.pragma('foreign_keys = ON');
    } catch (err) {
      db?.close();
      if (err instanceof StoreError) throw err;
      throw refuse((err as Error).message);
    }
  }

  private migrate(): void {
    const version = this.db.pragma('user_version', { simple: true }) as number;
    if (version > MIGRATIONS.length) {
      throw new StoreError(`The database ${path.resolve(this.file)} was written by a newer Keel (schema ${version}); it was left untouched.`);
    }
    runMigrations(this.db, version);
  }

  close(): void {
    this.db.close();
  }

  createSession(row: Omit<SessionRow, 'id' | 'planNotePending'> & { planNotePending?: boolean }): SessionRow {
    const info = this.db
      .prepare(`INSERT INTO sessions (kind, root, title, mode, system_prompt, prompt_mode, prompt_instructions_hash, epoch, plan, model, prompt_date,
                  plan_note_pending, created_at, tools, server_instructions, parent_id)
                VALUES (@kind, @root, @title, @mode, @systemPrompt, @promptMode, @promptInstructionsHash, @epoch, @plan, @model, @promptDate,
                  @planNotePending, @createdAt, @tools, @serverInstructions, @parentId)`)
      .run({
        ...row, plan: JSON.stringify(row.plan), planNotePending: row.planNotePending ? 1 : 0,
        tools: row.tools === undefined ? null : JSON.stringify(row.tools), serverInstructions: JSON.stringify(row.serverInstructions ?? {}),
        parentId: row.parentId ?? null,
      });
    return { ...row, planNotePending: row.planNotePending ?? false, id: Number(info.lastInsertRowid) };
  }

  getSession(id: number): SessionRow | undefined {
    const r = this.db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as Row | undefined;
    return r && toSession(r);
  }

  listSessions(): SessionRow[] {
    return (this.db.prepare('SELECT * FROM sessions ORDER BY id').all() as Row[]).map(toSession);
  }

  /** Changes whenever a session is created or deleted, by this process or another (the CLI). */
  sessionsStamp(): string {
    const r = this.db.prepare('SELECT COUNT(*) AS n, IFNULL(MAX(id), 0) AS last FROM sessions').get() as { n: number; last: number };
    return `${r.n}:${r.last}`;
  }

  deleteSession(id: number): void {
    this.db.prepare('DELETE FROM sessions WHERE id = ?').run(id);
  }

  updateSession(id: number, fields: Partial<Omit<SessionRow, 'id' | 'kind' | 'root' | 'createdAt'>>): void {
    const columns: Record<string, string> = {
      title: 'title', mode: 'mode', systemPrompt: 'system_prompt', promptMode: 'prompt_mode',
      promptInstructionsHash: 'prompt_instructions_hash', epoch: 'epoch', plan: 'plan', model: 'model', promptDate: 'prompt_date',
      planNotePending: 'plan_note_pending', revertedPending: 'reverted_pending',
      tools: 'tools', serverInstructions: 'server_instructions',
    };
    const json = new Set(['plan', 'tools', 'serverInstructions', 'revertedPending']);
    const entries = Object.entries(fields).filter(([key]) => key in columns);
    if (entries.length === 0) return;
    const stored = (key: string, value: unknown) => (json.has(key) ? JSON.stringify(value) : typeof value === 'boolean' ? Number(value) : value);
    const values = Object.fromEntries(entries.map(([key, value]) => [key, stored(key, value)]));
    const sets = entries.map(([key]) => `${columns[key]} = @${key}`).join(', ');
    this.db.prepare(`UPDATE sessions SET ${sets} WHERE id = @id`).run({ ...values, id });
  }

  insertTurn(row: Omit<TurnRow, 'id'>): TurnRow {
    const info = this.db
      .prepare(`INSERT INTO turns (session_id, seq, epoch, status, words, notes, created_at)
                VALUES (@sessionId, @seq, @epoch, @status, @words, @notes, @createdAt)`)
      .run({ ...row, words: row.words ?? null, notes: JSON.stringify(row.notes) });
    return { ...row, id: Number(info.lastInsertRowid) };
  }

  updateTurn(id: number, fields: Partial<Pick<TurnRow, 'status' | 'words' | 'notes'>>): void {
    const current = this.db.prepare('SELECT status, words, notes FROM turns WHERE id = ?').get(id) as Row | undefined;
    if (!current) throw new StoreError(`No turn ${id} in ${this.file}.`);
    this.db.prepare('UPDATE turns SET status = @status, words = @words, notes = @notes WHERE id = @id').run({
      id,
      status: fields.status ?? current.status,
      words: fields.words !== undefined ? fields.words : current.words,
      notes: fields.notes !== undefined ? JSON.stringify(fields.notes) : current.notes,
    });
  }

  /** Marks the session's newest turn as stopped by the person, or not (a regenerate that finished). */
  setLatestTurnStopped(sessionId: number, stopped: boolean): void {
    this.db.prepare(`UPDATE turns SET stopped = ? WHERE id = (SELECT id FROM turns WHERE session_id = ? AND status != 'undone' ORDER BY seq DESC LIMIT 1)`)
      .run(stopped ? 1 : 0, sessionId);
  }

  /** The seqs of the session's turns whose reply the person stopped. */
  stoppedTurns(sessionId: number): Set<number> {
    const rows = this.db.prepare(`SELECT seq FROM turns WHERE session_id = ? AND stopped = 1 AND status != 'undone'`).all(sessionId) as { seq: number }[];
    return new Set(rows.map((r) => r.seq));
  }

  listTurns(sessionId: number): TurnRow[] {
    return (this.db.prepare('SELECT * FROM turns WHERE session_id = ? ORDER BY seq').all(sessionId) as Row[]).map((r) => ({
      id: r.id as number,
      sessionId: r.session_id as number,
      seq: r.seq as number,
      epoch: r.epoch as number,
      status: r.status as TurnRow['status'],
      words: (r.words as string | null) ?? undefined,
      notes: JSON.parse(r.notes as string),
      createdAt: r.created_at as string,
    }));
  }

  insertResult(row: ResultRow, attachments: readonly Attachment[] = []): void {
    this.db.transaction(() => {
      this.db
        .prepare(`INSERT INTO results (session_id, number, turn_id, tool, args, kind, path_given, path_resolved, file_hash,
                    line_start, line_end, line_total, files, touched, args_key, body, inserted, tokens, hooks, created_at)
                  VALUES (@sessionId, @number, @turnId, @tool, @args, @kind, @pathGiven, @pathResolved, @fileHash,
                    @lineStart, @lineEnd, @lineTotal, @files, @touched, @argsKey, @body, @inserted, @tokens, @hooks, @createdAt)`)
        .run(nullable({ ...RESULT_OPTIONAL, ...row }));
      const attach = this.db.prepare('INSERT INTO attachments (session_id, number, seq, mime_type, uri, data) VALUES (?, ?, ?, ?, ?, ?)');
      attachments.forEach((a, i) => attach.run(row.sessionId, row.number, i + 1, a.mimeType, a.uri ?? null, a.data));
    })();
  }

  listAttachments(sessionId: number, number: number): Attachment[] {
    const rows = this.db.prepare('SELECT * FROM attachments WHERE session_id = ? AND number = ? ORDER BY seq').all(sessionId, number) as Row[];
    return rows.map((r) => ({ mimeType: r.mime_type as string, data: r.data as Buffer, ...(r.uri === null ? {} : { uri: r.uri as string }) }));
  }

  setResultTokens(sessionId: number, number: number, tokens: number): void {
    this.db.prepare('UPDATE results SET tokens = ? WHERE session_id = ? AND number = ?').run(tokens, sessionId, number);
  }

  getResult(sessionId: number, number: number): ResultRow | undefined {
    const r = this.db.prepare('SELECT * FROM results WHERE session_id = ? AND number = ?').get(sessionId, number) as Row | undefined;
    return r && toResult(r);
  }

  listResults(sessionId: number): ResultRow[] {
    return (this.db.prepare('SELECT * FROM results WHERE session_id = ? ORDER BY number').all(sessionId) as Row[]).map(toResult);
  }

  lastResultNumber(sessionId: number): number {
    const r = this.db.prepare('SELECT MAX(number) AS n FROM results WHERE session_id = ?').get(sessionId) as { n: number | null };
    return r.n ?? 0;
  }

  insertCompaction(row: CompactionRow): void {
    this.db.prepare(`INSERT INTO compactions (session_id, epoch, summary, text, created_at)
                     VALUES (@sessionId, @epoch, @summary, @text, @createdAt)`).run(row);
  }

  insertReply(row: Omit<ReplyRow, 'id'>): ReplyRow {
    const info = this.db
      .prepare(`INSERT INTO replies (session_id, turn_id, seq, text, raw, calls, created_at)
                VALUES (@sessionId, @turnId, @seq, @text, @raw, @calls, @createdAt)`)
      .run({ ...row, raw: row.raw ?? null, calls: JSON.stringify(row.calls) });
    return { ...row, id: Number(info.lastInsertRowid) };
  }

  listReplies(sessionId: number): ReplyRow[] {
    return (this.db.prepare('SELECT * FROM replies WHERE session_id = ? ORDER BY id').all(sessionId) as Row[]).map((r) => ({
      id: r.id as number, sessionId: r.session_id as number, turnId: r.turn_id as number, seq: r.seq as number,
      text: r.text as string, ...(r.raw === null ? {} : { raw: r.raw as string }), calls: JSON.parse(r.calls as string),
      createdAt: r.created_at as string,
    }));
  }

  insertRequest(row: Omit<RequestRow, 'id'>): RequestRow {
    const keys = Object.keys(REQUEST_COLUMNS) as (keyof typeof REQUEST_COLUMNS)[];
    const info = this.db
      .prepare(`INSERT INTO requests (${keys.map((k) => REQUEST_COLUMNS[k]).join(', ')}) VALUES (${keys.map((k) => '@' + k).join(', ')})`)
      .run(nullable({
        ...Object.fromEntries(keys.map((k) => [k, undefined])), ...row,
        engine: row.engine && JSON.stringify(row.engine),
      }));
    return { ...row, id: Number(info.lastInsertRowid) };
  }

  listRequests(sessionId: number): RequestRow[] {
    const keys = Object.keys(REQUEST_COLUMNS) as (keyof typeof REQUEST_COLUMNS)[];
    return (this.db.prepare('SELECT * FROM requests WHERE session_id = ? ORDER BY id').all(sessionId) as Row[]).map((r) => {
      const row = Object.fromEntries(keys.map((k) => [k, r[REQUEST_COLUMNS[k]] ?? undefined]));
      if (typeof row.engine === 'string') row.engine = JSON.parse(row.engine);
      return { id: r.id as number, ...row } as RequestRow;
    });
  }

  listCompactions(sessionId: number): CompactionRow[] {
    return (this.db.prepare('SELECT * FROM compactions WHERE session_id = ? ORDER BY epoch').all(sessionId) as Row[]).map(toCompaction);
  }

  lastCompaction(sessionId: number): CompactionRow | undefined {
    const r = this.db.prepare('SELECT * FROM compactions WHERE session_id = ? ORDER BY epoch DESC LIMIT 1').get(sessionId) as Row | undefined;
    return r && toCompaction(r);
  }
}

/** A result's optional fields, stored as NULL when a row leaves them out. */
const RESULT_OPTIONAL = {
  pathGiven: undefined, pathResolved: undefined, fileHash: undefined, lineStart: undefined, lineEnd: undefined, lineTotal: undefined,
  files: undefined, touched: undefined, argsKey: undefined, tokens: undefined, hooks: undefined,
} satisfies Partial<ResultRow>;

const REQUEST_COLUMNS = {
  sessionId: 'session_id', kind: 'kind', model: 'model', promptTokens: 'prompt_tokens', reusedTokens: 'reused_tokens',
  newTokens: 'new_tokens', outputTokens: 'output_tokens', cachedBefore: 'cached_before', prefillMs: 'prefill_ms',
  generationMs: 'generation_ms', systemSha: 'system_sha', toolsSha: 'tools_sha', firstDiff: 'first_diff', cause: 'cause',
  turn: 'turn', answers: 'answers', contextSize: 'context_size', createdAt: 'created_at', engine: 'engine',
} as const;

/**
 * A new database is made under a temporary name and renamed into place once its schema is in, so
 * Keel never leaves an empty or half-made file of its own (an empty keel.db is refused, not reused).
 */
function createEmpty(file: string, options: StoreOptions): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.creating-${process.pid}`;
  const db = new Database(temp, { nativeBinding: options.nativeBinding });
  try {
    db.pragma('journal_mode = WAL');
    runMigrations(db, 0);
  } finally {
    db.close();
  }
  fs.renameSync(temp, file);
}

/**
 * Applies the migrations after `from`, each in its own transaction. Foreign keys are off while
 * they run (a migration may rebuild a table, and dropping the old one must not cascade to its
 * rows' children), and every reference is checked before each commits.
 */
function runMigrations(db: Database.Database, from: number): void {
  db.pragma('foreign_keys = OFF');
  for (let v = from; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      const migration = MIGRATIONS[v];
      if (typeof migration === 'string') db.exec(migration);
      else migration(db);
      const broken = db.pragma('foreign_key_check') as unknown[];
      if (broken.length > 0) throw new Error(`migration ${v + 1} would leave ${broken.length} broken references`);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}

/** The page size from a SQLite header, or undefined when the file does not start like one. */
function readPageSize(file: string): number | undefined {
  const header = Buffer.alloc(100);
  const fd = fs.openSync(file, 'r');
  try {
    if (fs.readSync(fd, header, 0, 100, 0) < 100) return undefined;
  } finally {
    fs.closeSync(fd);
  }
  if (header.toString('latin1', 0, 16) !== 'SQLite format 3\u0000') return undefined;
  const raw = header.readUInt16BE(16);
  return raw === 1 ? 65536 : raw;
}

function nullable<T extends object>(row: T): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v === undefined ? null : v]));
}

function toSession(r: Row): SessionRow {
  return {
    id: r.id as number,
    kind: r.kind as SessionRow['kind'],
    root: r.root as string,
    title: r.title as string,
    mode: r.mode as SessionRow['mode'],
    systemPrompt: r.system_prompt as string,
    promptMode: r.prompt_mode as SessionRow['mode'],
    promptInstructionsHash: r.prompt_instructions_hash as string,
    epoch: r.epoch as number,
    plan: JSON.parse(r.plan as string),
    model: r.model as string,
    promptDate: r.prompt_date as string,
    planNotePending: r.plan_note_pending === 1,
    ...(r.reverted_pending ? { revertedPending: JSON.parse(r.reverted_pending as string) as string[] } : {}),
    createdAt: r.created_at as string,
    ...(r.tools === null ? {} : { tools: JSON.parse(r.tools as string) }),
    serverInstructions: JSON.parse(r.server_instructions as string),
    ...(r.parent_id === null ? {} : { parentId: r.parent_id as number }),
  };
}

function toCompaction(r: Row): CompactionRow {
  return { sessionId: r.session_id as number, epoch: r.epoch as number, summary: r.summary as string, text: r.text as string, createdAt: r.created_at as string };
}

function toResult(r: Row): ResultRow {
  const opt = <T>(v: unknown) => (v === null ? undefined : (v as T));
  return {
    sessionId: r.session_id as number,
    number: r.number as number,
    turnId: r.turn_id as number,
    tool: r.tool as string,
    args: r.args as string,
    kind: r.kind as ResultRow['kind'],
    pathGiven: opt(r.path_given),
    pathResolved: opt(r.path_resolved),
    fileHash: opt(r.file_hash),
    lineStart: opt(r.line_start),
    lineEnd: opt(r.line_end),
    lineTotal: opt(r.line_total),
    files: opt(r.files),
    touched: opt(r.touched),
    argsKey: opt(r.args_key),
    body: r.body as string,
    inserted: r.inserted as string,
    tokens: opt(r.tokens),
    hooks: opt(r.hooks),
    createdAt: r.created_at as string,
  };
}
