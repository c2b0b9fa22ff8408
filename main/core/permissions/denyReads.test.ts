/**
 * Issue 35 class 3, for the reading tools: a deny rule applies to every tool it names, before any
 * allow and in every mode. `read` of a denied file is refused; the folder walkers (grep, glob, list,
 * search) leave denied files out and say so; a link to a denied file is the file; `recall` of a stored
 * result that shows a denied file is refused. Controls: the other files read, search and recall as before.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../db/store.js';
import { DEFAULT_PROMPTS_DIR } from '../prompts/buildSystemPrompt.js';
import { Session } from '../session/session.js';
import type { Mode } from '../state/types.js';
import { ToolRegistry } from '../tools/registry.js';
import type { Rule } from './types.js';

const SECRET = 'KEEL_SECRET_TOKEN_7f3a';
let tmp: string;
let root: string;
let store: SqliteStore;

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-denyread-')));
  root = path.join(tmp, 'ws');
  fs.mkdirSync(path.join(root, 'secrets'), { recursive: true });
  fs.writeFileSync(path.join(root, '.env'), `TOKEN=${SECRET}\n`);
  fs.writeFileSync(path.join(root, 'secrets', 'key.txt'), `${SECRET} key\n`);
  fs.writeFileSync(path.join(root, 'a.txt'), `not the ${'TOK'}EN, but TOKEN= is named here\n`);
  fs.symlinkSync(path.join(root, '.env'), path.join(root, 'env-link'));
  store = new SqliteStore(path.join(tmp, 'k.db'));
});
afterEach(() => {
  store.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const RULES: Rule[] = [
  { action: 'allow', tool: '*' },
  { action: 'deny', tool: 'read', pattern: '.env' },
  { action: 'deny', tool: '*', pattern: 'secrets/**' },
  { action: 'deny', tool: 'grep', pattern: '.env' },
];
const deps = (rules: Rule[]) => ({ store, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, now: () => new Date(), permissions: { rules, approve: async () => 'allow' as const } });
const session = (mode: Mode, rules = RULES) => Session.create(deps(rules), { root, kind: 'agent', mode });

describe('deny rules on reading tools', () => {
  it('read of a denied file is refused in every mode, by its name or through a link; the allow rule does not lift it', async () => {
    for (const mode of ['ask', 'accept-edits', 'plan', 'auto'] as const) {
      const s = session(mode);
      const direct = await s.calls.run('read', { path: '.env' });
      expect(direct.text).toBe(`[#0001]\nError: denied: read of ${path.join(root, '.env')}: rule: deny read .env. Nothing was changed.`);
      expect((await s.calls.run('read', { path: 'env-link' })).text).toMatch(/\nError: denied: read of .*\/ws\/\.env: rule: deny read \.env\./);
      expect((await s.calls.run('read', { path: 'secrets/key.txt' })).text).toMatch(/rule: deny \* secrets\/\*\*/);
      expect((await s.calls.run('read', { path: 'a.txt' })).text).toContain('TOKEN= is named here');
    }
  });

  it('grep, glob, list and search leave denied files out and say how many', async () => {
    const s = session('ask');
    const grep = (await s.calls.run('grep', { pattern: 'TOKEN' })).text;
    expect(grep).not.toContain(SECRET);
    expect(grep).toContain(`${path.join(root, 'a.txt')}:1:`);
    expect(grep).toContain("(3 files left out: the person's deny rules keep them from this tool.)"); // .env, the link to it, secrets/key.txt
    const glob = (await s.calls.run('glob', { pattern: '**/*' })).text;
    expect(glob).not.toContain('key.txt');
    expect(glob).toContain(path.join(root, '.env')); // no rule keeps .env from glob
    expect(glob).toContain("(1 file left out: the person's deny rules keep it from this tool.)");
    expect((await s.calls.run('list', { path: 'secrets' })).text).toMatch(/Error: denied: list of .*secrets: rule: deny \* secrets\/\*\*/);
    const list = (await s.calls.run('list', {})).text;
    expect(list).toBe(`[#0004]\n${['.env', 'a.txt', 'env-link'].map((f) => path.join(root, f)).join('\n')}\n(1 file left out: the person's deny rules keep it from this tool.)`);
    const search = (await s.calls.run('search', { query: SECRET.toLowerCase() })).text;
    expect(search).not.toContain('key.txt');
    expect(search).toContain('left out');
    // Without rules, the same calls see everything (the control).
    const open = session('ask', []);
    expect((await open.calls.run('grep', { pattern: 'TOKEN' })).text).toContain(SECRET);
  });

  it('recall of a result that shows a file a rule now denies is refused; other results recall as before', async () => {
    const before = session('auto', []);
    expect((await before.calls.run('read', { path: '.env' })).text).toContain(SECRET);
    expect((await before.calls.run('read', { path: 'a.txt' })).text).toContain('named here');
    const after = Session.open(deps(RULES), before.id);
    const refused = await after.calls.run('recall', { id: '#0001' });
    expect(refused.text).toContain(`Error: denied: recall of #0001, which shows ${path.join(root, '.env')}: rule: deny read .env. Nothing was shown.`);
    expect(refused.text).not.toContain(SECRET);
    expect((await after.calls.run('recall', { id: '#0002' })).text).toContain('named here');
  });
});
