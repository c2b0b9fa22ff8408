import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_PROMPTS_DIR } from '../core/prompts/buildSystemPrompt.js';
import { Session, type SessionDeps } from '../core/session/session.js';
import { ToolRegistry } from '../core/tools/registry.js';
import { SqliteStore } from '../db/store.js';
import { checkpointsDir } from '../checkpoints/open.js';
import { GitCheckpoints } from '../checkpoints/gitCheckpoints.js';
import { databasePath, dataUsage, keelHome } from '../keelHome.js';
import { cli, tempKeelHome } from '../../test/cliRun.js';

let tmp: string;
let root: string;
let store: SqliteStore;
let deps: SessionDeps;

beforeEach((ctx) => {
  tmp = tempKeelHome(ctx, 'keel-files-');
  root = path.join(tmp, 'ws');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'a.ts'), 'one\ntwo\nthree\n');
  store = new SqliteStore(databasePath());
  deps = { store, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, now: () => new Date('2026-11-30T10:00:00') };
});

afterEach(() => {
  store.close();
});

/** One model reply as the engine makes it: its calls run, then the reply is stored with them. */
async function reply(s: Session, words: string, ...calls: [string, unknown][]): Promise<void> {
  const made = [];
  for (const [name, args] of calls) made.push({ name, args, number: (await s.calls.run(name, args)).number, raw: `<call ${name}>` });
  s.recordReply(words, made, `RAW ${words}`);
}

/** A session with every kind of row: notes, replies, full reads and stubs, listings, a change, an undone turn, a compaction, requests. */
async function richSession(): Promise<Session> {
  const s = Session.create(deps, { root, kind: 'agent', mode: 'ask', title: 'Fix the parser', model: '/models/m.gguf' });
  s.userMessage('Read a.ts', { mode: 'auto' });
  await reply(s, 'Reading.', ['read', { path: 'a.ts' }], ['list', {}]);
  await reply(s, 'Done.');
  s.endReply();
  s.setPlanByPerson([{ text: 'Edit it', status: 'doing' }]);
  s.userMessage('Now change it');
  await reply(s, 'Changing.', ['edit', { path: 'a.ts', old_string: 'two', new_string: 'TWO' }], ['read', { path: 'nope.ts' }]);
  s.endReply();
  s.userMessage('Taken back later');
  s.endReply();
  s.history.undo();
  s.history.compact('Summary: a.ts was read and changed.');
  s.userMessage('After the summary');
  await reply(s, 'Again.', ['read', { path: 'a.ts' }], ['read', { path: 'a.ts', offset: 2 }], ['recall', { id: '#1' }]);
  s.endReply();
  store.setResultTokens(s.id, 1, 42);
  store.insertRequest({
    sessionId: s.id, kind: 'turn', model: '/models/m.gguf', promptTokens: 900, reusedTokens: 800, newTokens: 100, outputTokens: 12,
    cachedBefore: 850, prefillMs: 40.5, generationMs: 80.25, systemSha: 'a'.repeat(64), toolsSha: 'b'.repeat(64), firstDiff: 800,
    cause: 'undo', turn: 2, answers: 'person', contextSize: 8192, createdAt: '2026-11-30T10:00:05.000Z',
  });
  // What the engines recorded themselves (a server's figures; the checkpoint a hybrid model's cut resumed from) travels as it is.
  store.insertRequest({
    sessionId: s.id, kind: 'turn', model: 'server:http://127.0.0.1:8080#m', promptTokens: 950, reusedTokens: 900, newTokens: 50, outputTokens: 3,
    cachedBefore: 912, prefillMs: 20, generationMs: 30, systemSha: 'a'.repeat(64), toolsSha: 'b'.repeat(64), turn: 4, answers: 'results',
    createdAt: '2026-11-30T10:00:09.000Z',
    engine: { server: { url: 'http://127.0.0.1:8080', cachedTokens: 900, change: null, slot: 0 }, checkpoint: { restoredAt: null, reread: 50, why: 'none was taken' } },
  });
  return s;
}

describe('keel export and keel import', () => {
  it('round-trips a session: a new session with the same text, result ids, notes and request records', async () => {
    const s = await richSession();
    const exported = await cli('export', String(s.id));
    expect(exported.code).toBe(0);
    const file = path.join(tmp, 'session.jsonl');
    fs.writeFileSync(file, exported.out);
    const imported = await cli('import', file);
    expect(imported.err).toBe("");
    expect(imported.code).toBe(0);
    const newId = Number(/as session (\d+) /.exec(imported.out)?.[1]);
    expect(imported.out).toBe(`Imported ${file} as session ${newId} (4 turns, 7 results).\n`);
    expect(newId).not.toBe(s.id);

    // Row for row what the original holds, ids of the store aside.
    const strip = <T extends object>(rows: T[], ...keys: string[]) => rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !keys.includes(k))));
    expect(strip(store.listResults(newId), 'sessionId', 'turnId')).toEqual(strip(store.listResults(s.id), 'sessionId', 'turnId'));
    expect(strip(store.listTurns(newId), 'id', 'sessionId')).toEqual(strip(store.listTurns(s.id), 'id', 'sessionId'));
    expect(strip(store.listReplies(newId), 'id', 'sessionId', 'turnId')).toEqual(strip(store.listReplies(s.id), 'id', 'sessionId', 'turnId'));
    expect(strip(store.listRequests(newId), 'id', 'sessionId')).toEqual(strip(store.listRequests(s.id), 'id', 'sessionId'));
    expect(strip(store.listCompactions(newId), 'sessionId')).toEqual(strip(store.listCompactions(s.id), 'sessionId'));
    expect({ ...store.getSession(newId), id: 0 }).toEqual({ ...store.getSession(s.id), id: 0 });
    expect(store.getResult(newId, 1)?.tokens).toBe(42);

    // The imported session goes on as the original would: same history, same dedupe table, ids after the last.
    const copy = Session.open(deps, newId);
    expect(copy.turns().map((t) => t.words)).toEqual(['After the summary']);
    expect(copy.systemPromptForRequest()).toBe(s.systemPrompt);
    expect((await copy.calls.run('read', { path: 'a.ts', offset: 3 })).text).toMatch(/^\[#0008 a\.ts lines 3-3 of 3 sha \w+\]\nUnchanged since #0005/);
    expect((await copy.calls.run('recall', { id: '#2' })).text).toBe(`[#0009 recall #0002 lines 1-1 of 1]\n${root}/a.ts`);
  });

  it('reads a file written before the engine record had its own field: a request\'s server figures move into it', async () => {
    const s = await richSession();
    const lines = (await cli('export', String(s.id))).out.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const request = lines.findLast((l) => l.type === 'request')!;
    const record = request.engine as { server: unknown; checkpoint: unknown };
    // As Keel wrote it before: the server's figures beside the request's, and no other engine field.
    lines[lines.indexOf(request)] = { ...request, engine: undefined, server: record.server };
    const file = path.join(tmp, 'older.jsonl');
    fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const imported = await cli('import', file);
    expect(imported.err).toBe('');
    const newId = Number(/as session (\d+) /.exec(imported.out)?.[1]);
    expect(store.listRequests(newId).at(-1)!.engine).toEqual({ server: record.server });
    // A record that is not an object is refused, naming the line.
    lines[lines.indexOf(lines.findLast((l) => l.type === 'request')!)] = { ...request, engine: 'cached' };
    fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    expect((await cli('import', file)).err).toContain(`line ${lines.length}: "engine" must be a JSON object`);
  });

  it('writes into a file only when it does not exist yet, and holds nothing but the session', async () => {
    const s = await richSession();
    fs.writeFileSync(path.join(keelHome(), 'settings.json'), JSON.stringify({ modelsFolder: '/m', apiKey: 'sk-live-SECRET-4242' }));
    fs.mkdirSync(path.join(keelHome(), 'state'), { recursive: true });
    fs.writeFileSync(path.join(keelHome(), 'state', `session-${s.id}.bin`), 'KV-STATE-BYTES');
    const file = path.join(tmp, 'out.jsonl');
    const r = await cli('export', String(s.id), '--out', file);
    expect(r).toMatchObject({ code: 0, out: '', err: `Wrote session ${s.id} to ${file}.\n` });
    const text = fs.readFileSync(file, 'utf8');
    expect(text).not.toContain('SECRET');
    expect(text).not.toContain('KV-STATE');
    expect(text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l).type)).toEqual([
      'session', 'turn', 'turn', 'turn', 'turn', 'reply', 'reply', 'reply', 'reply',
      'result', 'result', 'result', 'result', 'result', 'result', 'result', 'compaction', 'request', 'request',
    ]);
    const again = await cli('export', String(s.id), '--out', file);
    expect(again).toMatchObject({ code: 1, err: `keel: ${file} already exists; give another --out FILE or remove it first.\n` });
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
    expect(await cli('export', '99')).toMatchObject({ code: 1, err: expect.stringContaining('There is no session 99') });
  });

  it('refuses a malformed file naming the file and the line, and imports nothing', async () => {
    const s = await richSession();
    const lines = (await cli('export', String(s.id))).out.trimEnd().split('\n');
    const edit = (i: number, change: (r: Record<string, unknown>) => void) => {
      const copy = [...lines];
      const r = JSON.parse(copy[i]);
      change(r);
      copy[i] = JSON.stringify(r);
      return copy;
    };
    const cases: [string[], string][] = [
      [[...lines.slice(0, 3), '{"type": "turn", "seq": 9,', ...lines.slice(3)], 'line 4: not JSON'],
      [edit(1, (r) => { delete r.status; }), 'line 2: "status" is missing'],
      [edit(2, (r) => { r.status = 'maybe'; }), 'line 3: "status" must be one of open, done, undone'],
      [edit(0, (r) => { r.format = 'something-else'; }), 'line 1: "format" must be one of keel-session'],
      [edit(0, (r) => { r.version = 7; }), 'line 1: version 7 is not one this Keel reads (it reads 1)'],
      [edit(5, (r) => { r.turn = 40; }), 'line 6: turn 40 is not among the turns before this line'],
      [edit(5, (r) => { (r.calls as { number: number }[])[0].number = 99; }), 'line 6: the reply calls result 99, which the file does not hold'],
      [edit(1, (r) => { r.notes = [{ kind: 'weather', body: 'sunny' }]; }), 'line 2: "notes" [0] is not a note'],
      [edit(9, (r) => { r.secret = 'x'; }), 'line 10: "secret" is not a field of this record'],
      [edit(10, (r) => { r.number = 1; }), 'line 11: a second result number 1'],
      [lines.slice(1), 'line 1: the first record must be the session'],
      [[lines[0], lines[0]], 'line 2: a second session record'],
      [[...lines, '{"type": "party"}'], `line ${lines.length + 1}: "type" must be one of session, turn, reply, result, compaction, request`],
      [[lines[0], lines[1].slice(0, 20)], 'line 2: not JSON'],
    ];
    const before = store.listSessions().length;
    for (const [content, problem] of cases) {
      const file = path.join(tmp, 'bad.jsonl');
      fs.writeFileSync(file, content.join('\n'));
      const r = await cli('import', file);
      expect(r.code, problem).toBe(1);
      expect(r.err).toContain(`keel: ${file} ${problem}`);
      expect(r.err).toMatch(/Nothing was imported\.\n$/);
    }
    expect(store.listSessions()).toHaveLength(before);
    expect(await cli('import', path.join(tmp, 'missing.jsonl'))).toMatchObject({ code: 1, err: expect.stringContaining(`Cannot read ${path.join(tmp, 'missing.jsonl')}`) });
  });
});

describe('keel delete', () => {
  it('says what would go without --yes; with it, deletes the session and its state files, and the id is never given again', async () => {
    const s = await richSession();
    const state = path.join(keelHome(), 'state');
    fs.mkdirSync(state, { recursive: true });
    for (const name of [`session-${s.id}.bin`, `session-${s.id}.bin.json`, `session-${s.id}1.bin`]) fs.writeFileSync(path.join(state, name), 'x');
    // Its checkpoints: a real shadow repository of the workspace, and another session's beside it.
    new GitCheckpoints({ dir: checkpointsDir(keelHome(), s.id), root, fresh: true });
    new GitCheckpoints({ dir: checkpointsDir(keelHome(), s.id + 100), root, fresh: true });
    expect(fs.existsSync(path.join(checkpointsDir(keelHome(), s.id), 'HEAD'))).toBe(true);
    // The data folder counts them: every file's bytes, as find sums them apart from Keel.
    const stored = (dir: string) => execFileSync('find', [dir, '-type', 'f', '-printf', '%s\\n']).toString().trim().split('\n').reduce((a, b) => a + Number(b), 0);
    const both = stored(path.join(keelHome(), 'checkpoints'));
    expect(both).toBeGreaterThan(0);
    expect(dataUsage(keelHome()).checkpoints).toEqual({ bytes: both, sessions: 2 });
    const asked = await cli('delete', String(s.id));
    expect(asked.code).toBe(1);
    expect(asked.err).toBe(`keel: This would delete session ${s.id} "Fix the parser" (3 turns, 7 results) in ${root} and its saved state. `
      + `Run \`keel delete ${s.id} --yes\` to do it (\`keel export ${s.id}\` first keeps a copy).\n`);
    expect(store.getSession(s.id)).toBeDefined();
    const done = await cli('delete', String(s.id), '--yes');
    expect(done).toMatchObject({ code: 0, out: `Deleted session ${s.id} "Fix the parser" (3 turns, 7 results) in ${root} and its saved state.\n` });
    expect(store.getSession(s.id)).toBeUndefined();
    expect(fs.readdirSync(state)).toEqual([`session-${s.id}1.bin`]);
    expect(fs.readdirSync(path.join(keelHome(), 'checkpoints'))).toEqual([`session-${s.id + 100}`]);
    expect(dataUsage(keelHome()).checkpoints).toEqual({ bytes: stored(checkpointsDir(keelHome(), s.id + 100)), sessions: 1 });
    expect(Session.create(deps, { root, kind: 'chat' }).id).toBe(s.id + 1);
  });
});
