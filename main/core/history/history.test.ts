import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../db/store.js';
import { DEFAULT_PROMPTS_DIR } from '../prompts/buildSystemPrompt.js';
import { ToolRegistry } from '../tools/registry.js';
import { Session, SessionError, type SessionDeps } from '../session/session.js';

let tmp: string;
let root: string;
let store: SqliteStore;
let deps: SessionDeps;

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-history-')));
  root = path.join(tmp, 'ws');
  fs.mkdirSync(root);
  for (const name of ['a', 'b', 'c']) fs.writeFileSync(path.join(root, `${name}.ts`), `${name} one\n${name} two\n`);
  store = new SqliteStore(path.join(tmp, 'keel.db'));
  deps = { store, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, now: () => new Date('2026-11-30T10:00:00') };
});

afterEach(() => {
  store.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** One model reply as the engine makes it: its calls run, then the reply is stored with them. */
async function reply(s: Session, ...calls: [string, unknown][]): Promise<string[]> {
  const made = [];
  for (const [name, args] of calls) {
    const inserted = await s.calls.run(name, args);
    made.push({ name, args, number: inserted.number, raw: `<${name}>`, text: inserted.text });
  }
  s.recordReply('', made.map(({ text: _text, ...call }) => call));
  return made.map((c) => c.text);
}

/** A turn: the person's words, one reply with these calls, the reply's end. */
async function turn(s: Session, words: string, ...calls: [string, unknown][]): Promise<string[]> {
  s.userMessage(words);
  const texts = await reply(s, ...calls);
  s.endReply();
  return texts;
}

const read = (file: string): [string, unknown] => ['read', { path: file }];
const FULL = /^\[#[0-9a-f]{4} \w\.ts lines 1-2 of 2 sha [0-9a-f]{8}\]\n1: /;

describe('after a quit or crash mid-reply (spec §2)', () => {
  it('leaves a result whose reply was never stored out of the dedupe and compaction tables, and recall still shows it', async () => {
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    s.userMessage('look');
    await reply(s, read('a.ts'));
    // The next reply's call ran and its result was stored; the process died before the reply was.
    await s.calls.run('read', { path: 'b.ts' });

    const resumed = Session.open(deps, s.id);
    resumed.userMessage('go on');
    const [b, a, recalled] = await reply(resumed, read('b.ts'), read('a.ts'), ['recall', { id: '#2' }]);
    expect(b).toMatch(/^\[#0003 b\.ts lines 1-2 of 2 sha \w+\]\n1: b one/);
    expect(a).toMatch(/\nUnchanged since #0001/);
    expect(recalled).toBe('[#0005 recall #0002 lines 1-2 of 2]\n1: b one\n2: b two');
    const table = resumed.history.compact('Summary.');
    expect(table).toContain('| #0001 |');
    expect(table).toContain('| #0003 |');
    expect(table).not.toContain('#0002');
  });

  it('keeps every result of the replies that were stored, in the turn cut short too', async () => {
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    s.userMessage('look');
    await reply(s, read('a.ts'), ['glob', { pattern: '*.ts' }]);
    const resumed = Session.open(deps, s.id);
    expect((await resumed.calls.run('glob', { pattern: '*.ts' })).text).toBe('[#0003] Same result as #0002.');
  });
});

describe("the person's plan (spec §10.3)", () => {
  it('keeps the note in the store until a message carries it, across a restart', () => {
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    s.userMessage('hi');
    s.endReply();
    s.setPlanByPerson([{ text: 'Write the parser', status: 'doing' }, { text: 'Test it', status: 'todo' }]);
    const resumed = Session.open(deps, s.id);
    expect(resumed.planNotePending).toBe(true);
    expect(resumed.userMessage('go').sent).toBe('go\n\nThe person changed the plan. It now reads:\n1. [~] Write the parser\n2. [ ] Test it');
    resumed.endReply();
    expect(Session.open(deps, s.id).planNotePending).toBe(false);
    expect(Session.open(deps, s.id).userMessage('next').notes).toEqual([]);
  });

  it('sends the plan again when the message that carried it is taken back', () => {
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    s.userMessage('hi');
    s.endReply();
    s.setPlanByPerson([{ text: 'One step', status: 'todo' }]);
    s.userMessage('with the plan');
    s.endReply();
    s.userMessage('after');
    s.endReply();
    s.history.deleteTurn(3);
    expect(s.planNotePending).toBe(false);
    s.history.rewindTo(2);
    expect(Session.open(deps, s.id).planNotePending).toBe(true);
    expect(s.userMessage('again').notes.map((n) => n.kind)).toEqual(['plan']);
  });
});

describe('rewind to an earlier message', () => {
  it('takes back that turn and every later one: their results leave the dedupe and compaction tables; ids go on', async () => {
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    await turn(s, 'first', read('a.ts'));
    await turn(s, 'second', read('b.ts'), ['list', {}]);
    await turn(s, 'third', read('c.ts'));
    const gone = s.history.rewindTo(2);
    expect(gone.map((t) => [t.seq, t.words])).toEqual([[2, 'second'], [3, 'third']]);
    expect(s.turns().map((t) => t.seq)).toEqual([1]);
    expect(Session.open(deps, s.id).turns().map((t) => t.seq)).toEqual([1]);

    s.userMessage('second, asked otherwise');
    expect((await s.calls.run('read', { path: 'b.ts' })).text).toMatch(/^\[#0005 b\.ts lines 1-2/);
    expect((await s.calls.run('read', { path: 'c.ts' })).text).toMatch(FULL);
    expect((await s.calls.run('list', {})).text).not.toMatch(/Same result/);
    expect((await s.calls.run('read', { path: 'a.ts' })).text).toMatch(/\nUnchanged since #0001/);
    const table = s.history.compact('Summary.');
    expect(table).not.toMatch(/#000[234] \|/);
  });

  it('is an edit and resend with new words: the message goes out as a new turn, with the notes it now needs', async () => {
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    await turn(s, 'first', read('a.ts'));
    await turn(s, 'second');
    s.history.rewindTo(2);
    expect(s.userMessage('second, edited')).toEqual({ sent: 'second, edited', notes: [] });
    s.endReply();
    s.history.rewindTo(1);
    // The message that told the date is gone, so the new first message tells it again.
    expect(s.userMessage('first, edited').sent).toBe("first, edited\n\nToday's date is 2026-11-30.");
    expect(s.turns().map((t) => [t.seq, t.words])).toEqual([[4, 'first, edited']]);
  });

  it('refuses a turn that is not in the history, and a reply still running', async () => {
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    await turn(s, 'first');
    await turn(s, 'second');
    s.history.undo();
    expect(() => s.history.rewindTo(2)).toThrow('There is no turn 2 in the history since the session began or was last compacted (they are 1).');
    s.history.compact('Summary.');
    expect(() => s.history.rewindTo(1)).toThrow(/no turn 1 .* \(there are none\)/);
    s.userMessage('third');
    await s.calls.run('list', {});
    expect(() => s.history.rewindTo(3)).toThrow(SessionError);
    expect(() => s.history.rewindTo(3)).toThrow('A reply is still running');
  });
});

describe('delete a turn', () => {
  it('takes that one turn back and keeps the later ones: its reads leave both tables', async () => {
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    await turn(s, 'first', read('a.ts'));
    await turn(s, 'second', read('b.ts'));
    await turn(s, 'third', read('c.ts'));
    s.history.deleteTurn(2);
    expect(Session.open(deps, s.id).turns().map((t) => t.words)).toEqual(['first', 'third']);
    s.userMessage('fourth');
    expect((await s.calls.run('read', { path: 'b.ts' })).text).toMatch(/^\[#0004 b\.ts lines 1-2 of 2 sha \w+\]\n1: b one/);
    expect((await s.calls.run('read', { path: 'c.ts' })).text).toMatch(/\nUnchanged since #0003/);
    s.endReply();
    s.history.undo();
    const table = s.history.compact('Summary.');
    expect(table).toContain('| #0001 |');
    expect(table).toContain('| #0003 |');
    expect(table).not.toContain('#0002');
  });

  it('is refused where a later stub or `Same result as` names one of its results, and then changes nothing', async () => {
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    await turn(s, 'first', read('a.ts'), ['glob', { pattern: '*.ts' }]);
    await turn(s, 'second', read('b.ts'));
    const [stub] = await turn(s, 'third', ['read', { path: 'a.ts', offset: 2 }]);
    expect(stub).toMatch(/\nUnchanged since #0001, which already shows lines 1-2\.$/);
    expect(() => s.history.deleteTurn(1)).toThrow("Turn 1 cannot be deleted: turn 3's #0004 stands for #0001 from it, and a stub may name only a result the request carries; rewind to turn 1 instead.");
    expect(s.turns().map((t) => t.seq)).toEqual([1, 2, 3]);
    s.history.undo();
    await turn(s, 'fourth', ['glob', { pattern: '*.ts' }]);
    expect(() => s.history.deleteTurn(1)).toThrow("turn 4's #0005 stands for #0002 from it");
    s.history.deleteTurn(2);
    expect(s.turns().map((t) => t.seq)).toEqual([1, 4]);
  });

  it('refuses an open turn and a turn not in the history', async () => {
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    s.userMessage('first');
    expect(() => s.history.deleteTurn(1)).toThrow('A reply is still running');
    expect(() => s.history.deleteTurn(7)).toThrow('There is no turn 7');
  });
});
