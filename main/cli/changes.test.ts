import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { checkpointsIn } from '../checkpoints/open.js';
import { DEFAULT_PROMPTS_DIR } from '../core/prompts/buildSystemPrompt.js';
import { Session, type SessionDeps } from '../core/session/session.js';
import { ToolRegistry } from '../core/tools/registry.js';
import { SqliteStore } from '../db/store.js';
import { databasePath, keelHome } from '../keelHome.js';
import { cli, tempKeelHome } from '../../test/cliRun.js';

let tmp: string;
let root: string;
let store: SqliteStore;
let deps: SessionDeps;

beforeEach((ctx) => {
  tmp = tempKeelHome(ctx, 'keel-changes-');
  root = path.join(tmp, 'ws');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'a.ts'), 'one\ntwo\nthree\n');
  store = new SqliteStore(databasePath());
  deps = { store, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, now: () => new Date(), checkpoints: checkpointsIn(keelHome()) };
});

afterEach(() => {
  store.close();
});

it('keel changes lists what the session changed with its diff (and as JSON); keel revert puts a file back, and delete removes the checkpoints', async () => {
  const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
  s.userMessage('edit');
  await s.calls.run('edit', { path: 'a.ts', old_string: 'two', new_string: 'TWO' });
  await s.calls.run('write', { path: 'b.ts', content: 'new\n' });
  s.endReply();
  s.userMessage('more');
  await s.calls.run('write', { path: 'c.ts', content: 'c\n' });
  s.endReply();

  const all = await cli('changes', String(s.id));
  expect(all.code).toBe(0);
  expect(all.out).toBe(`Session ${s.id} changed 3 files since it began:\na.ts: modified\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\nb.ts: created\n@@ -0,0 +1,1 @@\n+new\nc.ts: created\n@@ -0,0 +1,1 @@\n+c\n`);
  const since2 = JSON.parse((await cli('changes', String(s.id), '--turn', '2', '--json')).out) as { path: string; kind: string }[];
  expect(since2.map((c) => [c.path, c.kind])).toEqual([['c.ts', 'created']]);

  const reverted = await cli('revert', String(s.id), 'a.ts');
  expect(reverted).toMatchObject({ code: 0, out: 'a.ts is back as it was when the session began.\n' });
  expect(fs.readFileSync(path.join(root, 'a.ts'), 'utf8')).toBe('one\ntwo\nthree\n');
  const again = await cli('revert', String(s.id), 'a.ts');
  expect(again.code).not.toBe(0);
  expect(again.err).toContain(`${root}/a.ts was not changed by this session since it began.`);

  const dir = path.join(keelHome(), 'checkpoints', `session-${s.id}`);
  expect(fs.existsSync(dir)).toBe(true);
  expect((await cli('delete', String(s.id), '--yes')).code).toBe(0);
  expect(fs.existsSync(dir)).toBe(false);
});
