import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../db/store.js';
import { DEFAULT_PROMPTS_DIR } from '../prompts/buildSystemPrompt.js';
import { ToolRegistry } from '../tools/registry.js';
import { Session, SessionError, type SessionDeps } from './session.js';

let tmp: string;
let root: string;
let store: SqliteStore;
let deps: SessionDeps;
let today = new Date('2026-11-30T10:00:00');

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-session-')));
  root = path.join(tmp, 'ws');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'a.ts'), 'one\ntwo\nthree\n');
  fs.writeFileSync(path.join(root, 'b.ts'), 'bee\n');
  store = new SqliteStore(path.join(tmp, 'keel.db'));
  today = new Date('2026-11-30T10:00:00');
  deps = { store, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, now: () => today };
});

afterEach(() => {
  store.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const text = async (s: Session, tool: string, args: unknown) => (await s.calls.run(tool, args)).text;

/** One model reply as the engine makes it: its calls run, then the reply is stored with them. */
async function reply(s: Session, ...calls: [string, unknown][]): Promise<number[]> {
  const made = [];
  for (const [name, args] of calls) made.push({ name, args, number: (await s.calls.run(name, args)).number, raw: `<${name}>` });
  s.recordReply('', made);
  return made.map((c) => c.number);
}

describe('the dedupe table follows the request being built', () => {
  it('agent sessions stub a re-read in a later turn; chat sessions read it in full', async () => {
    const agent = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    await reply(agent, ['read', { path: 'a.ts' }]);
    agent.endReply();
    expect(await text(agent, 'read', { path: 'a.ts' })).toMatch(/\nUnchanged since #0001/);

    const chat = Session.create(deps, { root, kind: 'chat', mode: 'auto' });
    await reply(chat, ['read', { path: 'a.ts' }]);
    expect(await text(chat, 'read', { path: 'a.ts' })).toMatch(/\nUnchanged since #0001/);
    chat.endReply();
    expect(await text(chat, 'read', { path: 'a.ts' })).toMatch(/^\[#0003 a.ts lines 1-3 of 3 sha [0-9a-f]{8}\]\n1: one/);
  });

  it('undo takes a turn\'s results out of the table, and its reads out of the compaction table', async () => {
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    await reply(s, ['read', { path: 'b.ts' }]);
    s.endReply();
    await reply(s, ['read', { path: 'a.ts' }]);
    s.endReply();
    s.history.undo();
    expect(await text(s, 'read', { path: 'a.ts' })).toMatch(/^\[#0003 a.ts lines 1-3 of 3 sha \w+\]\n1: one/);
    expect(await text(s, 'read', { path: 'b.ts' })).toMatch(/Unchanged since #0001/);
    s.recordReply('', [{ name: 'read', args: { path: 'a.ts' }, number: 3, raw: '' }, { name: 'read', args: { path: 'b.ts' }, number: 4, raw: '' }]);
    s.endReply();
    s.history.undo();
    const table = s.history.compact('Summary.');
    expect(table).toContain('| b.ts | 1-1 of 1 |');
    expect(table).not.toContain('a.ts');
  });

  it('refuses an undo while a reply is open or when nothing is left to undo', async () => {
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    expect(() => s.history.undo()).toThrow(SessionError);
    await s.calls.run('list', {});
    expect(() => s.history.undo()).toThrow(/still running/);
  });
});

describe('compaction (§7)', () => {
  it('empties the dedupe table, keeps ids going, and recall still reaches earlier results', async () => {
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    await s.calls.run('read', { path: 'a.ts' });
    await s.calls.run('list', {});
    const replaced = s.history.compact('Read a.ts.\n');
    expect(replaced.split('\n\n')[0]).toBe('Read a.ts.');
    expect(await text(s, 'read', { path: 'a.ts' })).toMatch(/^\[#0003 a.ts lines 1-3 of 3 sha \w+\]\n1: one/);
    expect(await text(s, 'list', {})).toMatch(/^\[#0004\]\n/);
    expect(await text(s, 'recall', { id: '#1' })).toBe('[#0005 recall #0001 lines 1-3 of 3]\n1: one\n2: two\n3: three');
  });

  it('fails on an empty summary and changes nothing', async () => {
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    await s.calls.run('read', { path: 'a.ts' });
    const prompt = s.systemPrompt;
    expect(() => s.history.compact(' \n ')).toThrow(/summary is empty/);
    expect(s.epoch).toBe(0);
    expect(s.systemPrompt).toBe(prompt);
    expect(await text(s, 'read', { path: 'a.ts' })).toMatch(/Unchanged since #0001/);
  });
});

describe('notes (§10.3)', () => {
  it('puts the date on the first message, again only when it changes, and after a compaction', () => {
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    expect(s.userMessage('hi').sent).toBe("hi\n\nToday's date is 2026-11-30.");
    expect(s.userMessage('again').sent).toBe('again');
    today = new Date('2026-12-01T00:01:00');
    expect(s.userMessage('later').sent).toBe("later\n\nToday's date is 2026-12-01.");
    s.history.compact('Summary.');
    expect(s.userMessage('next').sent).toBe("next\n\nToday's date is 2026-12-01.");
  });

  it('sends the date again when the message that carried it was undone', () => {
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    s.userMessage('hi');
    s.endReply();
    s.history.undo();
    expect(s.userMessage('hi again').notes.map((n) => n.kind)).toEqual(['date']);
  });

  it('adds the mode note only when the mode really changed, with prompts/modes/NAME.md as its body', () => {
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    s.userMessage('hi');
    const body = fs.readFileSync(path.join(DEFAULT_PROMPTS_DIR, 'modes/plan.md'), 'utf8').trim();
    expect(s.userMessage('plan it', { mode: 'plan' }).sent).toBe(`plan it\n\nThe permission mode is now plan: ${body}`);
    expect(s.userMessage('still', { mode: 'plan' }).sent).toBe('still');
    s.setMode('ask');
    s.setMode('plan');
    expect(s.userMessage('back and forth').notes).toEqual([]);
  });

  it('tells the model of an instruction file the person edited, once', () => {
    fs.writeFileSync(path.join(root, 'AGENTS.md'), 'Use tabs.\n');
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    expect(s.systemPrompt).toContain('Use tabs.');
    expect(s.userMessage('hi').notes.map((n) => n.kind)).toEqual(['date']);
    fs.writeFileSync(path.join(root, 'AGENTS.md'), 'Use spaces.\n');
    expect(s.userMessage('go').sent).toBe('go\n\nThe person edited AGENTS.md. It now reads:\nUse spaces.');
    expect(s.userMessage('more').notes).toEqual([]);
  });

  it('reads Claude Code\'s CLAUDE.md and CLAUDE.local.md beside AGENTS.md, in that order, each edit of the person told by its name', () => {
    fs.writeFileSync(path.join(root, 'AGENTS.md'), 'Use tabs.\n');
    fs.writeFileSync(path.join(root, 'CLAUDE.md'), 'Run npm test before you answer.\n');
    fs.writeFileSync(path.join(root, 'CLAUDE.local.md'), 'My editor is vim.\n');
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    const at = (text: string) => s.systemPrompt.indexOf(text);
    expect(at('# Instructions from AGENTS.md\n\nUse tabs.')).toBeGreaterThan(0);
    expect(at('# Instructions from CLAUDE.md\n\nRun npm test before you answer.')).toBeGreaterThan(at('Use tabs.'));
    expect(at('# Instructions from CLAUDE.local.md\n\nMy editor is vim.')).toBeGreaterThan(at('Run npm test'));
    expect(s.userMessage('hi').notes.map((n) => n.kind)).toEqual(['date']);
    fs.writeFileSync(path.join(root, 'CLAUDE.md'), 'Run npm test first.\n');
    expect(s.userMessage('go').sent).toBe('go\n\nThe person edited CLAUDE.md. It now reads:\nRun npm test first.');
    expect(s.userMessage('more').notes).toEqual([]);
    // A file the person removed: told once, by its name, as empty; the others not again.
    fs.rmSync(path.join(root, 'CLAUDE.local.md'));
    expect(s.userMessage('gone').notes).toEqual([{ kind: 'instructions', path: 'CLAUDE.local.md', hash: '', body: '' }]);
    expect(Session.open(deps, s.id).userMessage('again').notes).toEqual([]);
  });

  it('reads the person\'s ~/.claude/CLAUDE.md after the workspace\'s files, and tells the person\'s edit of it', () => {
    const home = path.join(tmp, 'home');
    fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
    fs.writeFileSync(path.join(home, '.claude', 'CLAUDE.md'), 'Answer in British English.\n');
    fs.writeFileSync(path.join(root, 'CLAUDE.md'), 'Run the tests.\n');
    const saved = process.env.HOME;
    process.env.HOME = home;
    try {
      const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
      expect(s.systemPrompt.indexOf('# Instructions from ~/.claude/CLAUDE.md\n\nAnswer in British English.')).toBeGreaterThan(s.systemPrompt.indexOf('Run the tests.'));
      s.userMessage('hi');
      fs.writeFileSync(path.join(home, '.claude', 'CLAUDE.md'), 'Answer briefly.\n');
      expect(s.userMessage('go').sent).toBe('go\n\nThe person edited ~/.claude/CLAUDE.md. It now reads:\nAnswer briefly.');
    } finally {
      process.env.HOME = saved;
    }
  });

  it('tells no note of the model\'s own write of CLAUDE.md: its result told it', async () => {
    fs.writeFileSync(path.join(root, 'CLAUDE.md'), 'Old.\n');
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    s.userMessage('rewrite it');
    await reply(s, ['write', { path: 'CLAUDE.md', content: 'New.\n' }]);
    s.endReply();
    expect(s.userMessage('thanks').notes).toEqual([]);
  });

  it('tells no note of the model\'s own edit of the instruction file: its diff told it, in a stored reply', async () => {
    fs.writeFileSync(path.join(root, 'AGENTS.md'), 'Use tabs.\n');
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    s.userMessage('switch to spaces');
    const [edit] = await reply(s, ['edit', { path: 'AGENTS.md', old_string: 'tabs', new_string: 'spaces' }]);
    expect(await text(s, 'recall', { id: `#${edit}` })).toMatch(/\+Use spaces\./);
    s.endReply();
    expect(s.userMessage('thanks').notes).toEqual([]);
    // So too once the session is opened again from its store.
    expect(Session.open(deps, s.id).userMessage('again').notes).toEqual([]);
  });

  it('tells the person\'s edit after the model\'s own, and the person\'s edit of a file the model wrote', async () => {
    fs.writeFileSync(path.join(root, 'AGENTS.md'), 'Use tabs.\n');
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    s.userMessage('switch to spaces');
    await reply(s, ['edit', { path: 'AGENTS.md', old_string: 'tabs', new_string: 'spaces' }]);
    s.endReply();
    fs.writeFileSync(path.join(root, 'AGENTS.md'), 'Use spaces. Keep lines short.\n');
    expect(s.userMessage('I added a rule').sent).toBe('I added a rule\n\nThe person edited AGENTS.md. It now reads:\nUse spaces. Keep lines short.');
    s.endReply();

    // A file the model created, then the person edited.
    const fresh = Session.create(deps, { root: path.join(root, '..'), kind: 'agent', mode: 'auto' });
    fresh.userMessage('write the rules');
    await reply(fresh, ['write', { path: 'AGENTS.md', content: 'Be brief.\n' }]);
    fresh.endReply();
    expect(fresh.userMessage('ok').notes).toEqual([]);
    fs.writeFileSync(path.join(tmp, 'AGENTS.md'), 'Be very brief.\n');
    expect(fresh.userMessage('changed it').notes).toEqual([{ kind: 'instructions', path: 'AGENTS.md', hash: expect.any(String), body: 'Be very brief.' }]);
  });

  it('tells the file as it is when the model\'s edit left the request: an undone turn, or a reply never stored', async () => {
    fs.writeFileSync(path.join(root, 'AGENTS.md'), 'Use tabs.\n');
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    s.userMessage('hi');
    s.endReply();
    s.userMessage('switch to spaces');
    await reply(s, ['edit', { path: 'AGENTS.md', old_string: 'tabs', new_string: 'spaces' }]);
    s.endReply();
    s.history.undo();
    // The file stays as the model left it, but no request carries that diff any more.
    expect(s.userMessage('and now?').sent).toBe('and now?\n\nThe person edited AGENTS.md. It now reads:\nUse spaces.');
    s.endReply();
    await s.calls.run('edit', { path: 'AGENTS.md', old_string: 'spaces', new_string: 'tabs' });
    s.endReply();
    expect(s.userMessage('back?').notes.map((n) => n.kind)).toEqual(['instructions']);
  });

  it('never changes the system prompt between requests, and a resumed session sends the stored bytes', async () => {
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    const first = s.systemPromptForRequest();
    s.userMessage('hi', { mode: 'plan' });
    fs.writeFileSync(path.join(root, 'AGENTS.md'), 'New rules.\n');
    today = new Date('2027-01-01T00:00:00');
    await s.calls.run('read', { path: 'a.ts' });
    expect(s.systemPromptForRequest()).toBe(first);
    expect(s.systemPromptUnchanged()).toBe(true);
    expect(Session.open(deps, s.id).systemPromptForRequest()).toBe(first);
    expect(first).not.toMatch(/2026|2027/);
  });
});

describe('a session resumed from its store', () => {
  it('rebuilds the dedupe table, the known hashes and the id counter', async () => {
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    await reply(s, ['read', { path: 'a.ts' }], ['glob', { pattern: '*.ts' }]);
    s.endReply();
    const resumed = Session.open(deps, s.id);
    expect(await text(resumed, 'read', { path: 'a.ts', offset: 2 })).toMatch(/^\[#0003 a.ts lines 2-3 of 3 sha \w+\]\nUnchanged since #0001, which already shows lines 1-3\.$/);
    expect(await text(resumed, 'glob', { pattern: '*.ts' })).toBe('[#0004] Same result as #0002.');
    fs.writeFileSync(path.join(root, 'a.ts'), 'changed outside\n');
    expect(await text(resumed, 'edit', { path: 'a.ts', old_string: 'changed', new_string: 'x' })).toMatch(/has changed on disk since/);
    expect(fs.readFileSync(path.join(root, 'a.ts'), 'utf8')).toBe('changed outside\n');
  });

  it('gives back each reply with its words, its exact text where that differs, and its calls', async () => {
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    s.userMessage('go');
    const call = { name: 'read', args: { path: 'a.ts' }, number: (await s.calls.run('read', { path: 'a.ts' })).number, raw: '<call>' };
    s.recordReply('Reading.', [call], '<|channel|>commentary<|message|>Reading.<|end|>');
    s.recordReply('Done.', []);
    s.endReply();
    const replies = Session.open(deps, s.id).turns()[0].replies;
    expect(replies.map(({ text, raw, calls }) => ({ text, raw, calls }))).toEqual([
      { text: 'Reading.', raw: '<|channel|>commentary<|message|>Reading.<|end|>', calls: [call] },
      { text: 'Done.', raw: undefined, calls: [] },
    ]);
  });

  it('stores every result in full before it is handed on', async () => {
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    const inserted = await s.calls.run('bash', { command: 'seq 1 1000' });
    expect(inserted.text).toContain('[700 lines elided, full output #0001]');
    const other = new SqliteStore(store.file);
    try {
      const row = other.getResult(s.id, 1);
      expect(row?.body.split('\n')).toHaveLength(1000);
      expect(row?.inserted).toBe(inserted.text);
    } finally {
      other.close();
    }
  });
});

describe('bad calls from the model', () => {
  it('answers an unknown tool and bad arguments with an error result and goes on', async () => {
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    expect(await text(s, 'reed', { path: 'a.ts' })).toMatch(/^\[#0001\]\nError: there is no tool "reed"/);
    expect(await text(s, 'read', { path: 3 })).toBe('[#0002]\nError: invalid arguments for read: "path" must be a string.');
    expect(await text(s, 'read', 'a.ts')).toBe('[#0003]\nError: invalid arguments for read: arguments must be an object.');
    expect(await text(s, 'read', { path: 'a.ts' })).toMatch(/^\[#0004 a.ts lines 1-3/);
  });
});
