import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../db/store.js';
import { callLine, ScriptedEngine } from '../../../test/scriptedEngine.js';
import { DEFAULT_PROMPTS_DIR } from '../prompts/buildSystemPrompt.js';
import { ToolRegistry } from '../tools/registry.js';
import { AgentLoop, type LoopEvent, type LoopOptions } from './loop.js';
import { Session, type SessionDeps } from '../session/session.js';
import type { Mode, RequestRow } from '../state/types.js';

let tmp: string;
let store: SqliteStore;
let engine: ScriptedEngine;
let events: LoopEvent[];

function open(o: { mode?: Mode; deps?: Partial<SessionDeps>; loop?: Partial<LoopOptions>; files?: Record<string, string> } = {}) {
  const root = path.join(tmp, 'ws');
  fs.mkdirSync(root, { recursive: true });
  for (const [rel, text] of Object.entries(o.files ?? { 'a.txt': 'alpha\n' })) fs.writeFileSync(path.join(root, rel), text);
  const deps: SessionDeps = { store, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, now: () => new Date('2026-11-30T10:00:00'), ...o.deps };
  const session = Session.create(deps, { root, kind: 'agent', mode: o.mode ?? 'auto', model: engine.id });
  return new AgentLoop({ session, store, engine, promptsDir: DEFAULT_PROMPTS_DIR, onEvent: (e) => events.push(e), ...o.loop });
}

const causes = (rows: RequestRow[]) => rows.map((r) => r.cause ?? null);

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-loop-')));
  store = new SqliteStore(path.join(tmp, 'keel.db'));
  engine = new ScriptedEngine();
  events = [];
});

afterEach(() => {
  store.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('the agent loop on a scripted engine (no model)', () => {
  it('runs the calls a reply makes, feeds their results back, and ends on an answer', async () => {
    const loop = open();
    engine.replies.push(`Let me look.\n${callLine('read', { path: 'a.txt' })}`, 'It says alpha.');
    expect(await loop.send('What does a.txt say?')).toBe('It says alpha.');
    const rows = loop.requests();
    expect(rows.map((r) => [r.kind, r.turn, r.answers])).toEqual([['turn', 1, 'person'], ['turn', 1, 'results']]);
    // The second request carries the first reply and the result as inserted, after the same prefix.
    expect(engine.prompts[1].startsWith(engine.prompts[0])).toBe(true);
    expect(engine.prompts[1]).toMatch(/result: \[#0001 a\.txt lines 1-1 of 1 sha [0-9a-f]{8}\]\n1: alpha/);
    expect(causes(rows)).toEqual([null, null]);
    expect(rows[1].reusedTokens).toBeGreaterThanOrEqual(rows[0].promptTokens);
    // Each result's length in the engine's tokens is stored with it.
    const result = store.getResult(loop.session.id, 1)!;
    expect(result.tokens).toBe(result.inserted.length);
    expect(events.filter((e) => e.type === 'text').map((e) => e.type === 'text' && e.delta)).toEqual(['Let me look.', 'It says alpha.']);
  });

  it('stores each result once, with its tokens, and hands that value on: one statement on the results table per call', async () => {
    const loop = open();
    const statements: string[] = [];
    const prepare = store.db.prepare.bind(store.db);
    store.db.prepare = ((sql: string) => {
      statements.push(sql.trim());
      return prepare(sql);
    }) as typeof store.db.prepare;
    engine.replies.push(`${callLine('read', { path: 'a.txt' })}\n${callLine('bash', { command: 'seq 1 1000' })}`, 'Done.');
    await loop.send('go');
    store.db.prepare = prepare;
    expect(statements.filter((sql) => /\bresults\b/.test(sql)).map((sql) => sql.split(/\s/)[0])).toEqual(['INSERT', 'INSERT']);
    const results = events.flatMap((e) => (e.type === 'tool' ? [e.result] : []));
    expect(results.map((r) => r.number)).toEqual([1, 2]);
    for (const r of results) {
      const row = store.getResult(loop.session.id, r.number)!;
      expect(r.tokens).toBe(r.text.length);
      expect(row.tokens).toBe(r.tokens);
      expect(row.inserted).toBe(r.text);
    }
    expect(results[1].elided).toEqual({ line: 201, count: 700 });
    // The next request carried both, as stored.
    expect(engine.prompts[1]).toContain(`result: ${results[1].text}\n`);
  });

  it('leaves a result out of the dedupe table when its reply was never stored (a failed count): a re-read is full, not a stub', async () => {
    const loop = open();
    const count = engine.countTokens.bind(engine);
    let failures = 1;
    // The server's /tokenize fails once, on the first result.
    engine.countTokens = async (text) => {
      if (text.startsWith('[#') && failures-- > 0) throw new Error('tokenize failed: 503');
      return count(text);
    };
    engine.replies.push(callLine('read', { path: 'a.txt' }));
    await expect(loop.send('read it')).rejects.toThrow('tokenize failed: 503');
    expect(loop.session.turns().at(-1)?.status).toBe('done');
    engine.replies.push(callLine('read', { path: 'a.txt' }), 'It says alpha.');
    expect(await loop.send('again')).toBe('It says alpha.');
    const results = events.flatMap((e) => (e.type === 'tool' ? [e.result.text] : []));
    expect(results).toEqual([expect.stringMatching(/^\[#0002 a\.txt lines 1-1 of 1 sha [0-9a-f]{8}\]\n1: alpha$/)]);
    // No request carries #0001; it is stored (the tool ran), without a length, and recall shows it.
    expect(engine.prompts.some((p) => p.includes('[#0001'))).toBe(false);
    expect(store.getResult(loop.session.id, 1)).toMatchObject({ kind: 'full', tokens: undefined });
    expect((await loop.session.calls.run('recall', { id: '#1' })).text).toBe('[#0003 recall #0001 lines 1-1 of 1]\n1: alpha');
  });

  it('refuses the same call the fourth time in a row and ends the turn at the eighth', async () => {
    const loop = open();
    for (let i = 0; i < 12; i++) engine.replies.push(callLine('read', { path: 'a.txt' }));
    expect(await loop.send('loop')).toBe('');
    const results = events.flatMap((e) => (e.type === 'tool' ? [e.result.text] : []));
    expect(results).toHaveLength(8);
    expect(results[2]).toMatch(/^\[#0003 a\.txt/);
    expect(results[3]).toMatch(/^\[#0004\]\nError: this is the same read call 4 times in a row/);
  });

  it('stops at the step limit', async () => {
    const loop = open({ loop: { maxSteps: 3 } });
    for (let i = 0; i < 5; i++) engine.replies.push(callLine('list', { path: String(i) }));
    await loop.send('go');
    expect(loop.requests()).toHaveLength(3);
  });

  it('answers malformed arguments with an error result and goes on', async () => {
    const loop = open();
    engine.replies.push('CALL read {oops', 'Sorry.');
    expect(await loop.send('go')).toBe('Sorry.');
    const tool = events.find((e) => e.type === 'tool');
    expect(tool?.type === 'tool' && tool.result.text).toMatch(/^\[#0001\]\nError: the arguments of read are not valid JSON/);
  });

  it('compacts before a turn once the prompt passes the threshold, and names the cause', async () => {
    const loop = open({ loop: { compactAt: 0.5 } });
    engine.replies.push('One.');
    await loop.send('first');
    const size = await loop.promptTokens();
    // A context just over twice the prompt: the next turn is over half of it once the reply is in.
    Object.defineProperty(engine, 'contextSize', { value: size * 2 - 10 });
    engine.replies.push('Summary: said one.', 'Two.');
    expect(await loop.send('second')).toBe('Two.');
    const rows = loop.requests();
    expect(rows.map((r) => r.kind)).toEqual(['turn', 'compaction', 'turn']);
    expect(rows[2].cause).toBe('compaction');
    expect(loop.session.epoch).toBe(1);
    expect(events.some((e) => e.type === 'compacted')).toBe(true);
  });

  it('compacts at the threshold without rendering the history again: the last prompt and reply plus the message', async () => {
    // The turn's first request would be the last prompt, its reply and the person's message (one token a character here).
    const next = (rows: RequestRow[], words: string) => rows[0].promptTokens + rows[0].outputTokens + words.length;
    const first = open({ loop: { compactAt: 0.5 } });
    engine.replies.push('One.');
    await first.send('first');
    // The threshold one token under that size: the check compacts.
    Object.defineProperty(engine, 'contextSize', { value: 2 * (next(first.requests(), 'second') - 1) });
    let counted = 0;
    const count = engine.promptTokens.bind(engine);
    engine.promptTokens = (c) => { counted++; return count(c); };
    engine.replies.push('Summary: said one.', 'Two.');
    await first.send('second');
    expect(first.requests().map((r) => r.kind)).toEqual(['turn', 'compaction', 'turn']);
    expect(counted).toBe(0);

    // The threshold at that size: it does not.
    engine = new ScriptedEngine();
    const second = open({ loop: { compactAt: 0.5 } });
    engine.replies.push('One.');
    await second.send('first');
    Object.defineProperty(engine, 'contextSize', { value: 2 * next(second.requests(), 'second') });
    engine.replies.push('Two.');
    await second.send('second');
    expect(second.requests().map((r) => r.kind)).toEqual(['turn', 'turn']);
  });

  it('counts the history in full when it changed since the last request (an undo), and compacts on that count', async () => {
    const loop = open({ loop: { compactAt: 0.5 } });
    engine.replies.push('A long first answer, much longer than anything after it.', 'Short.');
    await loop.send('first');
    await loop.send('x');
    loop.undo();
    // The last request measured more than the history holds now: only a full count (with the message) sees it under the threshold.
    const size = await engine.promptTokens(loop.conversation('y'));
    Object.defineProperty(engine, 'contextSize', { value: 2 * size });
    engine.replies.push('Again.');
    await loop.send('y');
    expect(loop.requests().map((r) => r.kind)).toEqual(['turn', 'turn', 'turn']);
  });

  it('names undo, rewind, regenerate and an engine switch; a loss the engine names is its own', async () => {
    const loop = open();
    engine.replies.push('One.', 'Two.', 'Three.');
    await loop.send('first');
    await loop.send('second');
    loop.undo();
    await loop.send('second again');
    engine.replies.push('Regenerated.');
    expect(await loop.regenerate()).toBe('Regenerated.');
    loop.rewindTo(1);
    engine.replies.push('After the rewind.');
    await loop.send('instead');
    const before = engine;
    engine = new ScriptedEngine('other');
    await loop.switchEngine(engine);
    expect(before.disposed).toBe(true);
    expect(loop.session.model).toBe('other');
    engine.replies.push('On the other engine.', 'Later.');
    await loop.send('hello other');
    engine.evictNext = true;
    await loop.send('again');
    const rows = loop.requests();
    expect(causes(rows)).toEqual([null, null, 'undo', 'regenerate', 'rewind', 'model switched', 'server evicted the prefix']);
    // A switch loses what the old engine held, though the new one held nothing.
    expect(rows[5].cachedBefore).toBeGreaterThan(0);
    expect(rows[5].model).toBe('other');
  });

  it('asks before a command in ask mode, and a denial holds: nothing runs', async () => {
    const asked: string[] = [];
    const loop = open({ mode: 'ask', deps: { permissions: { approve: async (r) => { asked.push(r.command ?? ''); return 'deny'; } } } });
    engine.replies.push(callLine('bash', { command: 'touch pwned' }), 'Not allowed.');
    expect(await loop.send('run it')).toBe('Not allowed.');
    expect(asked).toEqual(['touch pwned']);
    expect(fs.existsSync(path.join(tmp, 'ws', 'pwned'))).toBe(false);
  });

  it('stops when its signal is aborted, leaving the turn closed', async () => {
    const controller = new AbortController();
    engine = new ScriptedEngine('scripted', 100_000, async () => {
      if (engine.prompts.length === 2) controller.abort();
    });
    const loop = open();
    for (let i = 0; i < 5; i++) engine.replies.push(callLine('list', { path: String(i) }));
    await loop.send('go', { signal: controller.signal });
    expect(loop.requests()).toHaveLength(2);
    expect(loop.session.turns().at(-1)?.status).toBe('done');
  });

  it('keeps the cause a saved state owes, and says why a state was not used', async () => {
    const loop = open({ loop: { stateFile: path.join(tmp, 'state.bin') } });
    engine.replies.push('One.');
    await loop.send('first');
    expect(await loop.restoreState()).toBe(false);
    expect(events.filter((e) => e.type === 'notice').map((e) => e.type === 'notice' && e.text)).toEqual([
      expect.stringContaining('was not used: saved state unusable: none was saved'),
    ]);
    // The next request owes its full read to the state that was not used, even across a save.
    await loop.saveState();
    expect(engine.saved).toEqual({ pendingCause: 'saved state unusable' });
    engine.replies.push('Two.');
    await loop.send('second');
    expect(loop.requests().at(-1)!.cause).toBe('saved state unusable');
  });
});
