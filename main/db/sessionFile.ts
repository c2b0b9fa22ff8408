import { BREAK_CAUSES, MODES, type CompactionRow, type ReplyRow, type RequestRow, type ResultRow, type SessionRow, type TurnRow } from '../core/state/types.js';
import type { SqliteStore } from './store.js';

/**
 * A session as a file: JSON Lines, one record a line, `type` first. The first line is the
 * session; then its turns, replies, results, compactions and requests, each as stored, with the
 * store's own ids left out: a reply or result names its turn by `turn` (the turn's seq), and
 * results keep their numbers, so every `#id` in the text still names the same result. Nothing
 * but the session's own rows goes in: no settings, no approvals, no saved KV state.
 */
export const FORMAT = 'keel-session';
export const VERSION = 1;

/** A file that is not a session file Keel can read: the line, and what is wrong with it. */
export class SessionFileError extends Error {
  constructor(readonly line: number, readonly problem: string) {
    super(`line ${line}: ${problem}`);
  }
}

type Kind = 'string' | 'integer' | 'number' | 'boolean' | 'json' | readonly string[] | ((v: unknown) => string | undefined);
type Shape = Record<string, { kind: Kind; optional?: boolean }>;
const req = (kind: Kind) => ({ kind });
const opt = (kind: Kind) => ({ kind, optional: true });

const NOTE_FIELDS: Record<string, Shape> = {
  date: { kind: req(['date']), date: req('string') },
  mode: { kind: req(['mode']), mode: req(MODES), body: req('string') },
  instructions: { kind: req(['instructions']), path: req('string'), hash: req('string'), body: req('string') },
  plan: { kind: req(['plan']), body: req('string') },
  server: { kind: req(['server']), server: req('string'), body: req('string') },
  reverted: { kind: req(['reverted']), paths: req('json') },
};
const PLAN_ITEM: Shape = { text: req('string'), status: req(['todo', 'doing', 'done']) };
const CALL: Shape = { name: req('string'), args: req('json'), number: req('integer'), raw: req('string') };

const arrayOf = (item: (v: unknown) => Shape | string) => (v: unknown) => {
  if (!Array.isArray(v)) return 'must be an array';
  for (const [i, element] of v.entries()) {
    const shape = item(element);
    const problem = typeof shape === 'string' ? shape : check(element, shape);
    if (problem) return `[${i}] ${problem}`;
  }
  return undefined;
};
/** An engine's record of a request: a JSON object whose fields the engine declares (core/engine/breaks.ts EngineRecord). */
const engineRecord = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? undefined : 'must be a JSON object');
const noteShape = (v: unknown) => {
  const kind = (v as { kind?: unknown } | null)?.kind;
  return typeof kind === 'string' && kind in NOTE_FIELDS ? NOTE_FIELDS[kind] : `is not a note (kind must be one of ${Object.keys(NOTE_FIELDS).join(', ')})`;
};

const SHAPES = {
  session: {
    type: req(['session']), format: req([FORMAT]), version: req('integer'),
    kind: req(['agent', 'chat']), root: req('string'), title: req('string'), mode: req(MODES), systemPrompt: req('string'),
    promptMode: req(MODES), promptInstructionsHash: req('string'), epoch: req('integer'), plan: req(arrayOf(() => PLAN_ITEM)),
    model: req('string'), promptDate: req('string'), planNotePending: req('boolean'), createdAt: req('string'),
    tools: opt('json'), serverInstructions: opt('json'), revertedPending: opt('json'),
  },
  turn: {
    type: req(['turn']), seq: req('integer'), epoch: req('integer'), status: req(['open', 'done', 'undone']), words: opt('string'),
    notes: req(arrayOf(noteShape)), createdAt: req('string'),
  },
  reply: {
    type: req(['reply']), turn: req('integer'), seq: req('integer'), text: req('string'), raw: opt('string'), calls: req(arrayOf(() => CALL)),
    createdAt: req('string'),
  },
  result: {
    type: req(['result']), turn: req('integer'), number: req('integer'), tool: req('string'), args: req('string'),
    kind: req(['full', 'stub', 'same', 'error', 'recall', 'change']), pathGiven: opt('string'), pathResolved: opt('string'),
    fileHash: opt('string'), lineStart: opt('integer'), lineEnd: opt('integer'), lineTotal: opt('integer'), files: opt('string'), touched: opt('string'),
    argsKey: opt('string'), body: req('string'), inserted: req('string'), tokens: opt('integer'), hooks: opt('string'), createdAt: req('string'),
  },
  compaction: { type: req(['compaction']), epoch: req('integer'), summary: req('string'), text: req('string'), createdAt: req('string') },
  request: {
    type: req(['request']), kind: req(['turn', 'compaction']), model: req('string'), promptTokens: req('integer'), reusedTokens: req('integer'),
    newTokens: req('integer'), outputTokens: req('integer'), cachedBefore: req('integer'), prefillMs: req('number'), generationMs: req('number'),
    systemSha: req('string'), toolsSha: req('string'), firstDiff: opt('integer'), cause: opt(BREAK_CAUSES), turn: opt('integer'),
    answers: opt(['person', 'results']), contextSize: opt('integer'), createdAt: req('string'), engine: opt(engineRecord),
    // A file written before the engine's record had one field (`engine`): its server record, moved there on reading.
    server: opt('json'),
  },
} satisfies Record<string, Shape>;

type RecordType = keyof typeof SHAPES;

/** What is wrong with a record for its shape (missing, unknown or mistyped fields), or undefined. */
function check(value: unknown, shape: Shape): string | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return 'must be a JSON object';
  const obj = value as Record<string, unknown>;
  for (const [key, field] of Object.entries(shape)) {
    if (obj[key] === undefined) {
      if (field.optional) continue;
      return `"${key}" is missing`;
    }
    const problem = kindProblem(obj[key], field.kind);
    if (problem) return `"${key}" ${problem}`;
  }
  const unknown = Object.keys(obj).find((key) => !(key in shape));
  return unknown === undefined ? undefined : `"${unknown}" is not a field of this record`;
}

function kindProblem(v: unknown, kind: Kind): string | undefined {
  if (typeof kind === 'function') return kind(v);
  if (Array.isArray(kind)) return typeof v === 'string' && kind.includes(v) ? undefined : `must be one of ${kind.join(', ')}`;
  switch (kind) {
    case 'string':
      return typeof v === 'string' ? undefined : 'must be a string';
    case 'integer':
      return Number.isSafeInteger(v) && (v as number) >= 0 ? undefined : 'must be a whole number, 0 or more';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v) ? undefined : 'must be a number';
    case 'boolean':
      return typeof v === 'boolean' ? undefined : 'must be true or false';
    case 'json':
      return undefined;
  }
  return undefined;
}

const without = <T extends object, K extends keyof T>(row: T, ...keys: K[]): Omit<T, K> => {
  const copy = { ...row };
  for (const key of keys) delete copy[key];
  return copy;
};

/** The session's lines, in order; each is one JSON record. Read in one transaction: one moment's state. */
export function exportSession(store: SqliteStore, id: number): string[] {
  return store.db.transaction(() => sessionLines(store, id))();
}

function sessionLines(store: SqliteStore, id: number): string[] {
  const session = store.getSession(id);
  if (!session) throw new Error(`There is no session ${id} in ${store.file}.`);
  const turns = store.listTurns(id);
  const seqOf = new Map(turns.map((t) => [t.id, t.seq]));
  const line = (type: RecordType, fields: object) => JSON.stringify({ type, ...fields });
  return [
    line('session', { format: FORMAT, version: VERSION, ...without(session, 'id') }),
    ...turns.map((t) => line('turn', without(t, 'id', 'sessionId'))),
    ...store.listReplies(id).map((r) => line('reply', { turn: seqOf.get(r.turnId), ...without(r, 'id', 'sessionId', 'turnId') })),
    ...store.listResults(id).map((r) => line('result', { turn: seqOf.get(r.turnId), ...without(r, 'sessionId', 'turnId') })),
    ...store.listCompactions(id).map((c) => line('compaction', without(c, 'sessionId'))),
    ...store.listRequests(id).map((r) => line('request', without(r, 'id', 'sessionId'))),
  ];
}

interface Parsed {
  session: Omit<SessionRow, 'id'>;
  turns: Omit<TurnRow, 'id' | 'sessionId'>[];
  replies: (Omit<ReplyRow, 'id' | 'sessionId' | 'turnId'> & { turn: number })[];
  results: (Omit<ResultRow, 'sessionId' | 'turnId'> & { turn: number })[];
  compactions: Omit<CompactionRow, 'sessionId'>[];
  requests: Omit<RequestRow, 'id' | 'sessionId'>[];
}

/**
 * Reads a session file's text, checking every line before anything is stored. Throws
 * SessionFileError naming the first line that is wrong.
 */
export function parseSessionFile(text: string): Parsed {
  const parsed: Partial<Parsed> & Omit<Parsed, 'session'> = { turns: [], replies: [], results: [], compactions: [], requests: [] };
  const turnSeqs = new Set<number>();
  const numbers = new Set<number>();
  const callsAt: { line: number; numbers: number[] }[] = [];
  const lines = text.split('\n');
  for (const [i, raw] of lines.entries()) {
    const at = i + 1;
    if (raw.trim() === '') continue;
    const fail = (problem: string): never => {
      throw new SessionFileError(at, problem);
    };
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(raw) as Record<string, unknown>;
    } catch (err) {
      return fail(`not JSON (${(err as Error).message})`);
    }
    const type = record?.type;
    if (typeof type !== 'string' || !(type in SHAPES)) fail(`"type" must be one of ${Object.keys(SHAPES).join(', ')}`);
    if ((parsed.session === undefined) !== (type === 'session')) {
      fail(type === 'session' ? 'a second session record' : `the first record must be the session (type "session", format "${FORMAT}")`);
    }
    if (type === 'session' && record.format === FORMAT && record.version !== VERSION) {
      fail(`version ${String(record.version)} is not one this Keel reads (it reads ${VERSION})`);
    }
    const problem = check(record, SHAPES[type as RecordType]);
    if (problem) fail(problem);
    const { type: _type, format: _format, version: _version, ...fields } = record;
    switch (type as RecordType) {
      case 'session':
        parsed.session = fields as unknown as Parsed['session'];
        break;
      case 'turn':
        if (turnSeqs.has(fields.seq as number)) fail(`a second turn ${String(fields.seq)}`);
        turnSeqs.add(fields.seq as number);
        parsed.turns.push(fields as unknown as Parsed['turns'][number]);
        break;
      case 'reply':
      case 'result': {
        if (!turnSeqs.has(fields.turn as number)) fail(`turn ${String(fields.turn)} is not among the turns before this line`);
        if (type === 'reply') {
          const reply = fields as unknown as Parsed['replies'][number];
          callsAt.push({ line: at, numbers: reply.calls.map((c) => c.number) });
          parsed.replies.push(reply);
        } else {
          if (numbers.has(fields.number as number)) fail(`a second result number ${String(fields.number)}`);
          numbers.add(fields.number as number);
          parsed.results.push(fields as unknown as Parsed['results'][number]);
        }
        break;
      }
      case 'compaction':
        parsed.compactions.push(fields as unknown as Parsed['compactions'][number]);
        break;
      case 'request': {
        const { server, ...request } = fields;
        parsed.requests.push({ ...request, ...(server === undefined ? {} : { engine: { ...(request.engine as object), server } }) } as unknown as Parsed['requests'][number]);
        break;
      }
    }
  }
  if (!parsed.session) throw new SessionFileError(1, 'the file has no session record');
  for (const { line, numbers: called } of callsAt) {
    const missing = called.find((n) => !numbers.has(n));
    if (missing !== undefined) throw new SessionFileError(line, `the reply calls result ${missing}, which the file does not hold`);
  }
  return parsed as Parsed;
}

/** Stores a parsed session file as a new session, all of it or (on any failure) none. Returns its id. */
export function importSession(store: SqliteStore, parsed: Parsed): number {
  return store.db.transaction(() => {
    const session = store.createSession(parsed.session);
    const turnIds = new Map<number, number>();
    for (const t of parsed.turns) turnIds.set(t.seq, store.insertTurn({ ...t, sessionId: session.id }).id);
    for (const { turn, ...r } of parsed.replies) store.insertReply({ ...r, sessionId: session.id, turnId: turnIds.get(turn)! });
    for (const { turn, ...r } of parsed.results) store.insertResult({ ...r, sessionId: session.id, turnId: turnIds.get(turn)! });
    for (const c of parsed.compactions) store.insertCompaction({ ...c, sessionId: session.id });
    for (const r of parsed.requests) store.insertRequest({ ...r, sessionId: session.id });
    return session.id;
  })();
}
