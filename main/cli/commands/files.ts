import fs from 'node:fs';
import path from 'node:path';
import type { SqliteStore } from '../../db/store.js';
import { exportSession, importSession, parseSessionFile, SessionFileError } from '../../db/sessionFile.js';
import { keelHome, removeSessionState } from '../../keelHome.js';
import { CliError, requireSession, type Writer } from '../io.js';

/**
 * `keel export ID [--out FILE]`: the session as JSON Lines, on stdout or into FILE. An existing
 * FILE is never overwritten; the file appears whole or not at all (written aside, then renamed).
 */
export function exportCommand(store: SqliteStore, id: number, file: string | undefined, out: Writer, err: Writer): void {
  requireSession(store, id);
  const text = `${exportSession(store, id).join('\n')}\n`;
  if (file === undefined) {
    out.write(text);
    return;
  }
  const target = path.resolve(file);
  if (fs.existsSync(target)) throw new CliError(`${target} already exists; give another --out FILE or remove it first.`);
  const temp = `${target}.partial-${process.pid}`;
  try {
    fs.writeFileSync(temp, text, { flag: 'wx' });
    fs.renameSync(temp, target);
  } catch (e) {
    fs.rmSync(temp, { force: true });
    throw new CliError(`Cannot write ${target}: ${(e as Error).message}`);
  }
  err.write(`Wrote session ${id} to ${target}.\n`);
}

/** `keel import FILE`: a new session with the file's turns, results and requests, or nothing at all. */
export function importCommand(store: SqliteStore, file: string, out: Writer): void {
  const source = path.resolve(file);
  let text: string;
  try {
    text = fs.readFileSync(source, 'utf8');
  } catch (e) {
    throw new CliError(`Cannot read ${source}: ${(e as Error).message}`);
  }
  let parsed;
  try {
    parsed = parseSessionFile(text);
  } catch (e) {
    if (e instanceof SessionFileError) throw new CliError(`${source} line ${e.line}: ${e.problem}. Nothing was imported.`);
    throw e;
  }
  const id = importSession(store, parsed);
  out.write(`Imported ${source} as session ${id} (${parsed.turns.length} turns, ${parsed.results.length} results).\n`);
}

/**
 * `keel delete ID --yes`: the session, its turns and results, and its saved state files. Without
 * `--yes` it only says what would go: a mistyped id must not cost a session.
 */
export function deleteCommand(store: SqliteStore, id: number, yes: boolean, out: Writer): void {
  const row = requireSession(store, id);
  const turns = store.listTurns(id).filter((t) => t.status !== 'undone').length;
  const results = store.lastResultNumber(id);
  const what = `session ${id}${row.title ? ` "${row.title}"` : ''} (${turns} turns, ${results} results) in ${row.root}`;
  if (!yes) {
    throw new CliError(`This would delete ${what} and its saved state. Run \`keel delete ${id} --yes\` to do it (\`keel export ${id}\` first keeps a copy).`);
  }
  store.deleteSession(id);
  removeSessionState(keelHome(), id);
  out.write(`Deleted ${what} and its saved state.\n`);
}
