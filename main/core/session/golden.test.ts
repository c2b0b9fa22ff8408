/**
 * The golden fixture: the bytes of every request of one scripted session (stubs, a capped result,
 * an edit, recall, an AGENTS.md note, undo, compaction, a reopen), as the code of main at cb9ccee
 * sent them, before the session split, the one-write results and the dedupe-with-reply change.
 * A change that alters what an existing session sends fails here; one that must alter it says so
 * in docs/decisions.md and records the fixture again from the code before it.
 * The tool list is pinned by its SHA-256 (its bytes are tools/fixtures/parameters.json's).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { SqliteStore } from '../../db/store.js';
import { callLine, ScriptedEngine } from '../../../test/scriptedEngine.js';
import { DEFAULT_PROMPTS_DIR } from '../prompts/buildSystemPrompt.js';
import { ToolRegistry } from '../tools/registry.js';
import { AgentLoop } from '../turn/loop.js';
import { Session } from './session.js';

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'requests.golden.txt');
let tmp: string;
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

it('sends the same request bytes, request by request, as the recorded session', async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-golden-'));
  const root = path.join(tmp, 'ws');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'a.txt'), 'alpha\nbeta\n');
  fs.writeFileSync(path.join(root, 'AGENTS.md'), 'Be nice.\n');
  const store = new SqliteStore(path.join(tmp, 'keel.db'));
  const engine = new ScriptedEngine();
  const deps = { store, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, now: () => new Date('2026-11-30T10:00:00') };
  const session = Session.create(deps, { root, kind: 'agent', mode: 'auto', model: engine.id });
  const loop = new AgentLoop({ session, store, engine, promptsDir: DEFAULT_PROMPTS_DIR });
  engine.replies.push(`Look.\n${callLine('read', { path: 'a.txt' })}\n${callLine('read', { path: 'a.txt' })}`, callLine('bash', { command: 'seq 1 1000' }),
    `${callLine('list', {})}\n${callLine('list', {})}`, 'Done.');
  await loop.send('one');
  engine.replies.push(callLine('edit', { path: 'a.txt', old_string: 'beta', new_string: 'gamma' }), callLine('read', { path: 'a.txt' }),
    callLine('recall', { id: '#3', offset: 500, limit: 3 }), 'Ok.');
  await loop.send('two');
  fs.writeFileSync(path.join(root, 'AGENTS.md'), 'Be kind.\n');
  engine.replies.push(callLine('read', { path: 'a.txt' }), 'Fine.');
  await loop.send('three');
  loop.undo();
  engine.replies.push('Summary.', 'After.');
  await loop.compact();
  await loop.send('four');
  const reopened = new AgentLoop({ session: Session.open(deps, session.id), store, engine, promptsDir: DEFAULT_PROMPTS_DIR });
  engine.replies.push(callLine('read', { path: 'a.txt' }), 'End.');
  await reopened.send('five');
  store.close();

  const sent = engine.prompts.join('\n=====\n').replaceAll(root, '{{root}}')
    .replace(/^tools: (.*)$/gm, (_, list: string) => `tools: sha256:${crypto.createHash('sha256').update(list).digest('hex')}`);
  const recorded = fs.readFileSync(FIXTURE, 'utf8').split('\n=====\n');
  const now = sent.split('\n=====\n');
  expect(now).toHaveLength(recorded.length);
  expect(recorded).toHaveLength(14);
  now.forEach((request, i) => expect([i, request]).toEqual([i, recorded[i]]));
});
