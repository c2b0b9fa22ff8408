import type { CarriedResult, ReplyRow, ResultRow, SessionStore, Turn, TurnRow } from './types.js';

/**
 * What a result contributes to its turn once a stored reply carries it: its dedupe-table entry,
 * its read (for the compaction table) and the files it wrote — on a resume rebuilt exactly as
 * insertion made them.
 */
export function carry(turn: Turn, result: CarriedResult): void {
  if (result.entry) turn.entries.push(result.entry);
  if (result.read?.full) {
    const { full: _full, ...read } = result.read;
    turn.reads.push(read);
  }
  turn.wrote.push(...(result.wrote ?? []), ...(result.touched ?? []));
}

/**
 * Rebuilds the in-memory turns of a session from its stored turns, replies and results.
 * A result whose reply was never stored (Keel quit or crashed between running the call and
 * storing the reply that made it) is not in any request the session renders: the call is not in
 * the history. So it enters neither the dedupe table (spec §2: a stub names only a result the
 * request carries) nor the compaction table; it stays stored, so `recall` still shows it.
 */
export function restoreTurns(turns: TurnRow[], replies: ReplyRow[], results: ResultRow[]): Turn[] {
  const byId = new Map<number, Turn>(turns.map((t) => [t.id, { ...t, replies: [], entries: [], reads: [], wrote: [], unreplied: [], calls: 0 }]));
  const called = new Set<number>();
  for (const reply of replies) {
    byId.get(reply.turnId)?.replies.push(reply);
    for (const call of reply.calls) called.add(call.number);
  }
  for (const r of results) {
    const turn = byId.get(r.turnId);
    if (!turn) continue;
    turn.calls++;
    if (called.has(r.number)) carry(turn, carriedFromRow(r));
  }
  return [...byId.values()];
}

function carriedFromRow(r: ResultRow): CarriedResult {
  const wrote = filesOf(r);
  const touched = r.touched ? (JSON.parse(r.touched) as { absPath: string; hash: string }[]) : [];
  return { number: r.number, ...entryAndRead(r), ...(wrote.length > 0 ? { wrote } : {}), ...(touched.length > 0 ? { touched } : {}) };
}

function entryAndRead(r: ResultRow): Pick<CarriedResult, 'entry' | 'read'> {
  if (r.tool === 'read' && (r.kind === 'full' || r.kind === 'stub') && r.pathResolved && r.fileHash) {
    const read = {
      number: r.number, pathGiven: r.pathGiven ?? '', absPath: r.pathResolved, hash: r.fileHash,
      start: r.lineStart ?? 1, end: r.lineEnd ?? 0, total: r.lineTotal ?? 0, full: r.kind === 'full',
    };
    const entry = read.full && read.total > 0
      ? { kind: 'read' as const, number: r.number, absPath: read.absPath, hash: read.hash, start: read.start, end: read.end }
      : undefined;
    return { entry, read };
  }
  if (r.kind === 'full' && r.argsKey !== undefined) {
    return { entry: { kind: 'result', number: r.number, tool: r.tool, argsKey: r.argsKey, body: r.body } };
  }
  return {};
}

/** The hashes the session last saw for each file, from reads and changes, oldest first. */
export function restoreKnownHashes(results: ResultRow[]): Map<string, string> {
  const known = new Map<string, string>();
  for (const r of results) {
    if (r.tool === 'read' && r.pathResolved && r.fileHash && r.kind !== 'error') known.set(r.pathResolved, r.fileHash);
    for (const f of filesOf(r)) {
      if (f.hash) known.set(f.absPath, f.hash);
      else known.delete(f.absPath);
    }
  }
  return known;
}

/** The files a stored change wrote (hash '' = deleted). */
function filesOf(r: ResultRow): { absPath: string; hash: string }[] {
  return r.files ? (JSON.parse(r.files) as { absPath: string; hash: string }[]) : [];
}

/** What the session knew of each file when turn `seq` began: from the results of the turns before it. */
export function knownBefore(store: SessionStore, sessionId: number, seq: number): Map<string, string> {
  const before = new Set(store.listTurns(sessionId).filter((t) => t.seq < seq).map((t) => t.id));
  return restoreKnownHashes(store.listResults(sessionId).filter((r) => before.has(r.turnId)));
}
