/**
 * Crash safety, the kill loop: a child (child.ts) runs a scripted session on a real SQLite store
 * and workspace; the parent kills it with SIGKILL at a seeded random moment, then checks what a
 * crash must never do, and starts it again on the same database and workspace:
 *
 * - `PRAGMA integrity_check` is `ok` and no foreign key dangles;
 * - every result the child acknowledged (printed after calls.run returned, so after its commit) is
 *   stored in full: body and inserted text non-empty and byte-equal to what the child was given;
 * - no turn is half-written: result numbers run 1..N in each session, every result belongs to a
 *   turn of its session, turn seqs run 1..M, only a session's last turn may be open, every earlier
 *   turn has results, and results follow turn order;
 * - every file being written holds one whole version, the last acknowledged or one begun after it
 *   (old or new content), never a mix.
 *
 * The checks run on a copy of the database files, so the next child meets the crash as it was
 * left (its WAL recovered by SQLite on open, not by the checker).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { sha256 as sha } from '../../main/core/hash.js';
import { Rng } from '../prng.js';
import { CRASH_FILES, wholeVersion } from './script.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../..');
const CHILD = path.join(HERE, 'child.ts');

export interface KillLoopOptions {
  iterations: number;
  seed: number;
  /** The kill lands this many milliseconds (uniform, both included) after the child is ready. */
  minMs: number;
  maxMs: number;
  /** The share of kills that land while the store and session are being opened instead (default 0.1). */
  openKillRate?: number;
  /** Where the database and workspace live (default: a new temporary folder, removed at the end). */
  dir?: string;
  /** Keep the folder at the end (for a look at what the loop left). */
  keep?: boolean;
  /** Progress, one line per `progressEvery` iterations. */
  log?: (line: string) => void;
  progressEvery?: number;
}

export interface KillLoopFigures {
  iterations: number;
  /** Results the children acknowledged (committed, then printed). */
  acknowledged: number;
  /** Acknowledged results missing or not stored in full: must be 0. */
  lost: number;
  /** Reopened databases whose integrity_check (or foreign_key_check) was not clean. */
  integrityFailures: number;
  /** Files holding a mix of versions, or a version that is neither the old nor the new one. */
  tornFiles: number;
  /** Turn and result rows that do not fit together (half-written turns). */
  inconsistencies: number;
  /** Children that died by themselves, or never got going. */
  childFailures: number;
  /** Kills that landed while a write was in flight (begun, not acknowledged). */
  killsMidWrite: number;
  /** Kills that landed while the store and session were being opened. */
  killsWhileOpening: number;
  /** Temporary files atomicWrite left behind when the kill landed mid-write (not errors). */
  strayTempFiles: number;
  sessions: number;
  results: number;
  dbBytes: number;
  elapsedMs: number;
  /** What went wrong, the first few. */
  problems: string[];
}

interface Ack { s: number; n: number; tool: string; kind: string; body: string; ins: string; file?: string; tag?: string }
type Event =
  | { t: 'opening' }
  | { t: 'ready'; s: number; last: number }
  | { t: 'session'; s: number }
  | { t: 'begin'; file: string; tag: string; lines: number }
  | ({ t: 'ack' } & Ack);

/** What the parent knows of each file: the last acknowledged version and those begun since. */
interface FileState { acked?: string; begunSince: Set<string> }

export async function runKillLoop(o: KillLoopOptions): Promise<KillLoopFigures> {
  const started = Date.now();
  const rng = new Rng(o.seed);
  const dir = o.dir ?? fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-crash-')));
  const root = path.join(dir, 'workspace');
  const dbPath = path.join(dir, 'data', 'keel.db');
  const checkDir = path.join(dir, 'check');
  fs.mkdirSync(root, { recursive: true });
  fs.mkdirSync(checkDir, { recursive: true });

  const f: KillLoopFigures = {
    iterations: 0, acknowledged: 0, lost: 0, integrityFailures: 0, tornFiles: 0, inconsistencies: 0, childFailures: 0,
    killsMidWrite: 0, killsWhileOpening: 0, strayTempFiles: 0, sessions: 0, results: 0, dbBytes: 0, elapsedMs: 0, problems: [],
  };
  const problem = (what: string): void => {
    if (f.problems.length < 50) f.problems.push(`iteration ${f.iterations}: ${what}`);
  };
  const acks = new Map<string, Ack>();
  const lost = new Set<string>();
  const files = new Map<string, FileState>(CRASH_FILES.map((name) => [name, { begunSince: new Set<string>() }]));

  try {
    for (let i = 0; i < o.iterations; i++) {
      f.iterations = i + 1;
      const whileOpening = rng.chance(o.openKillRate ?? 0.1);
      const delay = whileOpening ? rng.int(0, 20) : rng.int(o.minMs, o.maxMs);
      const run = await runChild(dbPath, root, whileOpening, delay);
      if (run.failure) {
        f.childFailures++;
        problem(run.failure);
      }
      if (run.killedWhileOpening) f.killsWhileOpening++;
      let inFlight = false;
      for (const e of run.events) {
        if (e.t === 'begin') {
          files.get(e.file)!.begunSince.add(e.tag);
          inFlight = true;
        } else if (e.t === 'ack') {
          acks.set(`${e.s}:${e.n}`, e);
          f.acknowledged++;
          inFlight = false;
          if (e.file && e.tag) files.set(e.file, { acked: e.tag, begunSince: new Set() });
        }
      }
      if (inFlight) f.killsMidWrite++;
      checkDatabase(dbPath, checkDir, run.events.filter((e): e is { t: 'ack' } & Ack => e.t === 'ack'), lost, f, problem);
      checkFiles(root, files, f, problem);
      if (o.log && (i + 1) % (o.progressEvery ?? 25) === 0) {
        o.log(`  ${i + 1}/${o.iterations}: ${f.acknowledged} acknowledged, ${f.lost} lost, ${f.integrityFailures} integrity failures, ${f.tornFiles} torn`);
      }
    }
    finalCheck(dbPath, checkDir, acks, lost, f, problem);
    f.strayTempFiles = fs.readdirSync(root).filter((name) => /\.keel-\d+-[0-9a-f]+\.tmp$/.test(name)).length;
  } finally {
    f.elapsedMs = Date.now() - started;
    if (!o.keep && o.dir === undefined) fs.rmSync(dir, { recursive: true, force: true });
  }
  return f;
}

interface ChildRun { events: Event[]; failure?: string; killedWhileOpening: boolean }

/** Spawns the child, kills it `delay` ms after it is ready (or after it starts opening), and collects what it said. */
function runChild(dbPath: string, root: string, whileOpening: boolean, delay: number): Promise<ChildRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dbPath, root], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    const events: Event[] = [];
    let out = '';
    let err = '';
    let killed = false;
    let killedWhileOpening = false;
    let timer: NodeJS.Timeout | undefined;
    const kill = (): void => {
      if (killed) return;
      killed = true;
      killedWhileOpening = !events.some((e) => e.t === 'ready');
      child.kill('SIGKILL');
    };
    // Never wait forever on a child that does not get going.
    const guard = setTimeout(kill, 60_000);
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      let nl: number;
      while ((nl = out.indexOf('\n')) >= 0) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        let e: Event;
        try {
          e = JSON.parse(line) as Event;
        } catch {
          continue;
        }
        events.push(e);
        if (!killed && timer === undefined && ((whileOpening && e.t === 'opening') || (!whileOpening && e.t === 'ready'))) {
          timer = setTimeout(kill, delay);
        }
      }
    });
    child.stderr.on('data', (chunk: string) => {
      err += chunk;
    });
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      if (timer) clearTimeout(timer);
      const failure = !killed
        ? `the child exited by itself (code ${code}, signal ${signal}): ${err.trim().slice(-2000)}`
        : !events.some((e) => e.t === 'opening')
          ? `the child never started: ${err.trim().slice(-2000)}`
          : undefined;
      resolve({ events, failure, killedWhileOpening });
    });
  });
}

/** Copies the database as the kill left it (main file and WAL) and opens the copy. */
function openCopy(dbPath: string, checkDir: string): Database.Database | undefined {
  if (!fs.existsSync(dbPath)) return undefined;
  for (const name of fs.readdirSync(checkDir)) fs.rmSync(path.join(checkDir, name), { force: true });
  const copy = path.join(checkDir, 'keel.db');
  fs.copyFileSync(dbPath, copy);
  if (fs.existsSync(dbPath + '-wal')) fs.copyFileSync(dbPath + '-wal', copy + '-wal');
  return new Database(copy, { fileMustExist: true });
}

function checkDatabase(
  dbPath: string, checkDir: string, acks: Ack[], lost: Set<string>, f: KillLoopFigures, problem: (what: string) => void,
): void {
  let db: Database.Database | undefined;
  try {
    db = openCopy(dbPath, checkDir);
  } catch (err) {
    f.integrityFailures++;
    problem(`the database does not open: ${(err as Error).message}`);
    return;
  }
  if (!db) {
    if (acks.length > 0) {
      for (const a of acks) lost.add(`${a.s}:${a.n}`);
      f.lost = lost.size;
      problem('the database is gone');
    }
    return;
  }
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    const dangling = db.pragma('foreign_key_check') as unknown[];
    if (integrity !== 'ok' || dangling.length > 0) {
      f.integrityFailures++;
      problem(`integrity_check: ${String(integrity)}; foreign_key_check: ${JSON.stringify(dangling).slice(0, 300)}`);
    }
    // A kill during the very first open can leave a database whose schema was never committed:
    // fine, as long as nothing was acknowledged (the next open migrates it).
    if (!hasSchema(db)) {
      if (acks.length > 0 || lost.size > 0 || f.acknowledged > 0) {
        f.integrityFailures++;
        problem('the database has lost its tables');
      }
      return;
    }
    verifyAcks(db, acks, lost, f, problem);
    checkTurns(db, f, problem);
  } finally {
    db.close();
  }
}

const hasSchema = (db: Database.Database): boolean =>
  db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN ('sessions', 'turns', 'results')").pluck().get() === 3;

/** Adds to `lost` every acknowledged result that is not stored in full. */
function verifyAcks(db: Database.Database, acks: Iterable<Ack>, lost: Set<string>, f: KillLoopFigures, problem: (what: string) => void): void {
  const get = db.prepare('SELECT tool, kind, body, inserted FROM results WHERE session_id = ? AND number = ?');
  for (const a of acks) {
    const row = get.get(a.s, a.n) as { tool: string; kind: string; body: string; inserted: string } | undefined;
    const why = !row ? 'missing'
      : row.body === '' || row.inserted === '' ? 'stored empty'
        : row.tool !== a.tool || row.kind !== a.kind ? `stored as ${row.tool}/${row.kind}, acknowledged as ${a.tool}/${a.kind}`
          : sha(row.body) !== a.body || sha(row.inserted) !== a.ins ? 'stored with other bytes'
            : undefined;
    if (why && !lost.has(`${a.s}:${a.n}`)) {
      lost.add(`${a.s}:${a.n}`);
      problem(`result ${a.n} of session ${a.s}, acknowledged, is ${why}`);
    }
  }
  f.lost = lost.size;
}

/** Turn and result rows that do not fit together; each query counts offenders. */
const CONSISTENCY: [string, string][] = [
  ['result numbers do not run 1..N in a session',
    'SELECT COUNT(*) FROM (SELECT session_id FROM results GROUP BY session_id HAVING MIN(number) <> 1 OR MAX(number) <> COUNT(*))'],
  ['a result belongs to no turn of its session',
    'SELECT COUNT(*) FROM results r LEFT JOIN turns t ON t.id = r.turn_id AND t.session_id = r.session_id WHERE t.id IS NULL'],
  ['turn seqs do not run 1..M in a session',
    'SELECT COUNT(*) FROM (SELECT session_id FROM turns GROUP BY session_id HAVING MIN(seq) <> 1 OR MAX(seq) <> COUNT(*))'],
  ['a turn other than its session\'s last is still open',
    "SELECT COUNT(*) FROM turns t WHERE t.status = 'open' AND t.seq < (SELECT MAX(seq) FROM turns u WHERE u.session_id = t.session_id)"],
  ['a turn other than its session\'s last has no results',
    'SELECT COUNT(*) FROM turns t WHERE t.seq < (SELECT MAX(seq) FROM turns u WHERE u.session_id = t.session_id) AND NOT EXISTS (SELECT 1 FROM results r WHERE r.turn_id = t.id)'],
  ['a turn has a status other than open or done',
    "SELECT COUNT(*) FROM turns WHERE status NOT IN ('open', 'done')"],
  ['results do not follow turn order',
    `SELECT COUNT(*) FROM results a JOIN results b ON b.session_id = a.session_id AND b.number = a.number + 1
       JOIN turns ta ON ta.id = a.turn_id JOIN turns tb ON tb.id = b.turn_id WHERE tb.seq < ta.seq`],
  ['a session has no turns but results',
    'SELECT COUNT(*) FROM sessions s WHERE EXISTS (SELECT 1 FROM results r WHERE r.session_id = s.id) AND NOT EXISTS (SELECT 1 FROM turns t WHERE t.session_id = s.id)'],
];

function checkTurns(db: Database.Database, f: KillLoopFigures, problem: (what: string) => void): void {
  for (const [what, sql] of CONSISTENCY) {
    const count = db.prepare(sql).pluck().get() as number;
    if (count > 0) {
      f.inconsistencies += count;
      problem(`${what} (${count})`);
    }
  }
}

function checkFiles(root: string, files: Map<string, FileState>, f: KillLoopFigures, problem: (what: string) => void): void {
  for (const [name, state] of files) {
    const abs = path.join(root, name);
    if (!fs.existsSync(abs)) {
      if (state.acked) {
        f.tornFiles++;
        problem(`${name} is gone, though version ${state.acked} was acknowledged`);
      }
      continue;
    }
    const content = fs.readFileSync(abs, 'utf8');
    const version = wholeVersion(content);
    if (version === undefined) {
      f.tornFiles++;
      problem(`${name} is not one whole version: ${JSON.stringify(content.slice(0, 120))}…`);
    } else if (version !== state.acked && !state.begunSince.has(version)) {
      f.tornFiles++;
      problem(`${name} holds version ${version}, neither the acknowledged ${state.acked} nor one begun since`);
    }
  }
}

/** At the end: every acknowledged result, all iterations together, and the database's figures. */
function finalCheck(
  dbPath: string, checkDir: string, acks: Map<string, Ack>, lost: Set<string>, f: KillLoopFigures, problem: (what: string) => void,
): void {
  const db = openCopy(dbPath, checkDir);
  if (!db) return;
  try {
    if (!hasSchema(db)) return;
    const lostBefore = lost.size;
    verifyAcks(db, acks.values(), lost, f, problem);
    if (lost.size > lostBefore) problem(`${lost.size - lostBefore} acknowledged results were gone by the end`);
    f.sessions = db.prepare('SELECT COUNT(*) FROM sessions').pluck().get() as number;
    f.results = db.prepare('SELECT COUNT(*) FROM results').pluck().get() as number;
  } finally {
    db.close();
  }
  f.dbBytes = fs.statSync(dbPath).size + (fs.existsSync(dbPath + '-wal') ? fs.statSync(dbPath + '-wal').size : 0);
}
