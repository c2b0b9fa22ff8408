import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../db/store.js';
import { DEFAULT_PROMPTS_DIR } from '../prompts/buildSystemPrompt.js';
import { ToolRegistry } from '../tools/registry.js';
import { Session, type SessionDeps } from '../session/session.js';
import { sessionToolList } from './toolList.js';

let tmp: string;
let root: string;
let prompts: string;
let store: SqliteStore;
let deps: SessionDeps;

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-tools-')));
  root = path.join(tmp, 'ws');
  fs.mkdirSync(root);
  // A copy of the prompts, so a test can edit a description the way a person would mid-session.
  prompts = path.join(tmp, 'prompts');
  fs.cpSync(DEFAULT_PROMPTS_DIR, prompts, { recursive: true });
  store = new SqliteStore(path.join(tmp, 'keel.db'));
  deps = { store, tools: new ToolRegistry(), promptsDir: prompts, now: () => new Date('2026-11-30T10:00:00') };
});
afterEach(() => {
  store.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const readMd = () => path.join(prompts, 'tools', 'read.md');

describe("a session's tool list", () => {
  it('is read from prompts/tools once, at creation, stored, and unchanged when a description file is edited later', () => {
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    const before = JSON.stringify(s.tools);
    // Every built-in but skill, which a workspace without skills is not offered.
    expect(s.tools.map((t) => t.name)).toEqual(new ToolRegistry().names().filter((n) => n !== 'skill'));
    expect(s.tools[0].description).toBe(fs.readFileSync(readMd(), 'utf8').trim());
    fs.writeFileSync(readMd(), 'A new description, written while the session runs.\n');
    expect(JSON.stringify(s.tools)).toBe(before);
    expect(JSON.stringify(Session.open(deps, s.id).tools)).toBe(before);
    // The next session is the one that reads the new text.
    expect(Session.create(deps, { root, kind: 'agent', mode: 'auto' }).tools[0].description).toBe('A new description, written while the session runs.');
  });

  it('is built on first open for a session stored before lists were kept, then stays as stored', () => {
    const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
    store.db.prepare('UPDATE sessions SET tools = NULL WHERE id = ?').run(s.id);
    fs.writeFileSync(readMd(), 'Read at first open.\n');
    const opened = Session.open(deps, s.id);
    expect(opened.tools[0].description).toBe('Read at first open.');
    expect(store.getSession(s.id)!.tools![0].description).toBe('Read at first open.');
    fs.writeFileSync(readMd(), 'Edited after.\n');
    expect(Session.open(deps, s.id).tools[0].description).toBe('Read at first open.');
  });

  it('answers a call to a tool it does not list, naming the tools it has', async () => {
    const s = Session.create({ ...deps, tools: new ToolRegistry(['read', 'list']) }, { root, kind: 'agent', mode: 'auto' });
    expect((await s.calls.run('bash', { command: 'true' })).text).toBe('[#0001]\nError: there is no tool "bash". The tools are: read, list.');
    expect((await s.calls.run('mcp__x__y', {})).text).toBe('[#0002]\nError: there is no tool "mcp__x__y". The tools are: read, list.');
  });

  it('puts the built-ins first, then external tools sorted by name; an external name equal to a built-in is left out', () => {
    const t = (name: string) => ({ name, description: name, parameters: { type: 'object' } });
    expect(sessionToolList([t('read'), t('bash')], [t('mcp__b__z'), t('read'), t('mcp__a__y'), t('mcp__B__x')]).map((x) => x.name))
      .toEqual(['read', 'bash', 'mcp__B__x', 'mcp__a__y', 'mcp__b__z']);
  });
});
