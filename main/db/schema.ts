/** What a migration needs of the database: better-sqlite3's Database has it. */
export interface MigratingDb {
  exec(sql: string): unknown;
  prepare(sql: string): { get(...params: unknown[]): unknown; all(...params: unknown[]): unknown[] };
}

/** A migration: SQL, or a step that reads the schema it moves on. */
export type Migration = string | ((db: MigratingDb) => void);

/**
 * Migrations, applied in order; PRAGMA user_version counts how many ran. Never change what one that
 * has shipped does: add the next.
 */
export const MIGRATIONS: readonly Migration[] = [
  `
  CREATE TABLE sessions (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('agent', 'chat')),
    root TEXT NOT NULL,
    title TEXT NOT NULL,
    mode TEXT NOT NULL,
    system_prompt TEXT NOT NULL,
    prompt_mode TEXT NOT NULL,
    prompt_instructions_hash TEXT NOT NULL,
    epoch INTEGER NOT NULL DEFAULT 0,
    plan TEXT NOT NULL DEFAULT '[]',
    model TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
  );
  CREATE TABLE turns (
    id INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    epoch INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('open', 'done', 'undone')),
    words TEXT,
    notes TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL,
    UNIQUE (session_id, seq)
  );
  CREATE TABLE results (
    session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
    tool TEXT NOT NULL,
    args TEXT NOT NULL,
    kind TEXT NOT NULL,
    path_given TEXT,
    path_resolved TEXT,
    file_hash TEXT,
    line_start INTEGER,
    line_end INTEGER,
    line_total INTEGER,
    files TEXT,
    args_key TEXT,
    body TEXT NOT NULL,
    inserted TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (session_id, number)
  );
  CREATE INDEX results_turn ON results(turn_id);
  CREATE TABLE compactions (
    session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    epoch INTEGER NOT NULL,
    summary TEXT NOT NULL,
    text TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (session_id, epoch)
  );
  `,
  `
  ALTER TABLE sessions ADD COLUMN prompt_date TEXT NOT NULL DEFAULT '';
  CREATE TABLE replies (
    id INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    text TEXT NOT NULL,
    calls TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL
  );
  CREATE INDEX replies_turn ON replies(turn_id);
  CREATE TABLE requests (
    id INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    model TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    reused_tokens INTEGER NOT NULL,
    new_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cached_before INTEGER NOT NULL,
    prefill_ms REAL NOT NULL,
    generation_ms REAL NOT NULL,
    system_sha TEXT NOT NULL,
    tools_sha TEXT NOT NULL,
    first_diff INTEGER,
    cause TEXT,
    created_at TEXT NOT NULL
  );
  CREATE INDEX requests_session ON requests(session_id);
  `,
  `
  ALTER TABLE replies ADD COLUMN raw TEXT;
  ALTER TABLE results ADD COLUMN tokens INTEGER;
  ALTER TABLE requests ADD COLUMN turn INTEGER;
  ALTER TABLE requests ADD COLUMN answers TEXT;
  ALTER TABLE requests ADD COLUMN context_size INTEGER;
  `,
  // Ids are never reused (AUTOINCREMENT): a session's id names its saved state file, and a new
  // session must never meet an old one's state. SQLite cannot change a key in place, so each table
  // with its own id is rebuilt, rows and ids kept (run with foreign keys off, checked before commit).
  // The person's plan edit waits in plan_note_pending until a message carries it (spec §10.3).
  (db) => {
    for (const table of ['sessions', 'turns', 'replies', 'requests']) autoincrement(db, table);
    db.exec('ALTER TABLE sessions ADD COLUMN plan_note_pending INTEGER NOT NULL DEFAULT 0');
  },
  // The session's fixed tool list (JSON, NULL until a session stored before is first opened), the
  // MCP servers' instructions its system prompt holds, and what a result stored beside its text.
  `
  ALTER TABLE sessions ADD COLUMN tools TEXT;
  ALTER TABLE sessions ADD COLUMN server_instructions TEXT NOT NULL DEFAULT '{}';
  CREATE TABLE attachments (
    session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    mime_type TEXT NOT NULL,
    uri TEXT,
    data BLOB NOT NULL,
    PRIMARY KEY (session_id, number, seq)
  );
  `,
  // A server engine's record of each request (JSON): the cached tokens it reported, the first change.
  `
  ALTER TABLE requests ADD COLUMN server TEXT;
  `,
  // The hooks that ran for a call (JSON, NULL when none did): shown on its result, the model got only its text.
  `
  ALTER TABLE results ADD COLUMN hooks TEXT;
  `,
  // A turn whose reply the person stopped (the Stop button, Ctrl-C): shown as stopped, never sent.
  `
  ALTER TABLE turns ADD COLUMN stopped INTEGER NOT NULL DEFAULT 0;
  `,
  // On a hybrid or sliding-window model, the checkpoint a request resumed from (JSON, NULL elsewhere).
  `
  ALTER TABLE requests ADD COLUMN checkpoint TEXT;
  `,
  // Files a call changed without a diff in its result (a command rewrote AGENTS.md): the session's change (JSON, NULL when none).
  `
  ALTER TABLE results ADD COLUMN touched TEXT;
  `,
  // Files the person reverted in the app that no message has told the model of yet (JSON list, NULL when none).
  `
  ALTER TABLE sessions ADD COLUMN reverted_pending TEXT;
  `,
  // What the engine recorded of a request (JSON, NULL when nothing): its fields are the engine's own
  // (core/engine/breaks.ts EngineRecord), so the store names none. The two it had columns for move in.
  `
  ALTER TABLE requests ADD COLUMN engine TEXT;
  UPDATE requests SET engine = json_patch(
    CASE WHEN server IS NULL THEN '{}' ELSE json_object('server', json(server)) END,
    CASE WHEN checkpoint IS NULL THEN '{}' ELSE json_object('checkpoint', json(checkpoint)) END
  ) WHERE server IS NOT NULL OR checkpoint IS NOT NULL;
  ALTER TABLE requests DROP COLUMN server;
  ALTER TABLE requests DROP COLUMN checkpoint;
  `,
  // A subagent's session names the session whose task started it; it goes with that session.
  `
  ALTER TABLE sessions ADD COLUMN parent_id INTEGER REFERENCES sessions(id) ON DELETE CASCADE;
  `,
];

/**
 * Rebuilds `table` with `id INTEGER PRIMARY KEY AUTOINCREMENT`, from its own stored definition (every
 * column an earlier migration gave it), its rows, ids and indexes kept.
 */
function autoincrement(db: MigratingDb, table: string): void {
  const { sql } = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) as { sql: string };
  const indexes = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL").all(table) as { sql: string }[];
  const rebuilt = sql
    .replace(/^CREATE TABLE "?\w+"? \(/, `CREATE TABLE ${table}_new (`)
    .replace(/\bid INTEGER PRIMARY KEY\b(?! AUTOINCREMENT)/, 'id INTEGER PRIMARY KEY AUTOINCREMENT');
  if (!rebuilt.startsWith(`CREATE TABLE ${table}_new (`) || !rebuilt.includes('AUTOINCREMENT')) {
    throw new Error(`table ${table} has no plain integer id to make AUTOINCREMENT: ${sql}`);
  }
  db.exec(rebuilt);
  db.exec(`INSERT INTO ${table}_new SELECT * FROM ${table}; DROP TABLE ${table}; ALTER TABLE ${table}_new RENAME TO ${table};`);
  for (const index of indexes) db.exec(index.sql);
}
