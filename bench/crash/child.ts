/**
 * The kill loop's child: opens the SQLite store at argv[2], reopens its newest session on the
 * workspace argv[3] (or creates one; the session built as the app builds it, on the store's folder), and runs a scripted session until it is killed: read, write
 * (content that grows, every line stamped with its version: see script.ts), list, with endReply() every few calls.
 *
 *   node --import tsx bench/crash/child.ts <db> <workspace>
 *
 * It tells the parent, one JSON line per event on stdout (written synchronously, one write each):
 *   {"t":"opening"}                                     before the store is opened
 *   {"t":"ready","s":ID,"last":N}                       the session is open; N results stored so far
 *   {"t":"session","s":ID}                              the session was full: a new one goes on
 *   {"t":"begin","file":F,"tag":T,"lines":L}            a write of version T is about to start
 *   {"t":"ack","s":ID,"n":N,"tool":X,"kind":K,"body":SHA,"ins":SHA[,"file":F,"tag":T]}
 *       only after callTool returned, i.e. after the result was committed; file and tag for a
 *       write that changed the file.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sha256 as sha } from '../../main/core/hash.js';
import { Session } from '../../main/core/session/session.js';
import { SqliteStore } from '../../main/db/store.js';
import { appDeps } from '../appDeps.js';
import { RESULTS_PER_SESSION, versionContent } from './script.js';

/** Calls between two endReply(). */
const CALLS_PER_REPLY = 3;

const tell = (event: Record<string, unknown>): void => {
  fs.writeSync(1, JSON.stringify(event) + '\n');
};

async function main(): Promise<void> {
  const [dbPath, root] = process.argv.slice(2);
  if (!dbPath || !root) throw new Error('usage: child.ts <db> <workspace>');
  tell({ t: 'opening' });
  const store = new SqliteStore(dbPath);
  // The session as the app builds it, on the store's data folder (its checkpoints beside the store).
  const { deps, missing } = appDeps({ store, dataFolder: path.dirname(dbPath) });
  const fresh = (): Session => Session.create(deps, { root, kind: 'agent', mode: 'auto', title: 'kill loop' });
  const newest = store.listSessions().pop();
  let session = newest && store.lastResultNumber(newest.id) < RESULTS_PER_SESSION ? Session.open(deps, newest.id) : fresh();
  let last = store.lastResultNumber(session.id);
  // The gate asks the runner whether commands are sandboxed before each call; the first asking starts
  // the sandbox (its proxies: most of a second on a busy machine). It is started while opening, so
  // the kills after `ready` land among the calls, as before the session had a runner.
  await deps.commands!.status();
  tell({ t: 'ready', s: session.id, last });

  // Each write is read first, so a write whose result was lost to a kill (the file changed, the
  // session never heard) is not refused as a conflict after the restart.
  const script: { tool: 'read' | 'write' | 'list'; file?: string }[] = [
    { tool: 'read', file: 'a.txt' }, { tool: 'write', file: 'a.txt' }, { tool: 'list' },
    { tool: 'read', file: 'b.txt' }, { tool: 'write', file: 'b.txt' },
    { tool: 'read', file: 'c.txt' }, { tool: 'write', file: 'c.txt' }, { tool: 'list' },
  ];
  const nonce = `${process.pid}-${crypto.randomBytes(3).toString('hex')}`;
  for (let step = 0, version = 0; ; step++) {
    if (last >= RESULTS_PER_SESSION) {
      session.endReply();
      session = fresh();
      last = 0;
      tell({ t: 'session', s: session.id });
    }
    const op = script[step % script.length];
    let args: Record<string, unknown>;
    let wrote: { file: string; tag: string } | undefined;
    if (op.tool === 'write') {
      const tag = `${nonce}.${++version}`;
      const lines = 3 + ((version * 5) % 40);
      tell({ t: 'begin', file: op.file, tag, lines });
      args = { path: op.file, content: versionContent(tag, lines) };
      wrote = { file: op.file!, tag };
    } else {
      args = op.tool === 'read' ? { path: op.file } : {};
    }
    const inserted = await session.calls.run(op.tool, args);
    if (missing.length > 0) throw new Error(missing.join('; '));
    last = inserted.number;
    const changed = wrote && inserted.kind === 'change' ? wrote : undefined;
    tell({ t: 'ack', s: session.id, n: inserted.number, tool: op.tool, kind: inserted.kind, body: sha(inserted.body), ins: sha(inserted.text), ...changed });
    if ((step + 1) % CALLS_PER_REPLY === 0) session.endReply();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`child failed: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  },
);
