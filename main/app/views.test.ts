import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_PROMPTS_DIR } from '../core/prompts/buildSystemPrompt.js';
import { Session } from '../core/session/session.js';
import { ToolRegistry } from '../core/tools/registry.js';
import { SqliteStore } from '../db/store.js';
import { SUBAGENT_MIME } from '../core/tools/task.js';
import { callView, subagentLink, toolView } from './views.js';

let tmp: string;
let store: SqliteStore;

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-views-')));
  fs.mkdirSync(path.join(tmp, 'ws'));
  store = new SqliteStore(path.join(tmp, 'keel.db'));
});

afterEach(() => {
  store.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('a call as the transcript shows it', () => {
  it('is the same from the value the call handed on as from the stored row: text, tokens, the elided line', async () => {
    const s = Session.create({ store, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, now: () => new Date() }, { root: path.join(tmp, 'ws'), kind: 'agent', mode: 'auto' });
    const countTokens = async (text: string) => text.split(/\s+/).length;
    for (const command of ['seq 1 1000', 'echo short']) {
      const result = await s.calls.run('bash', { command }, { countTokens });
      const live = callView(result, 'bash', { command });
      expect(live).toEqual(toolView(store.getResult(s.id, result.number), 'bash', { command }, result.number));
      expect(live.tokens).toBe(await countTokens(result.text));
    }
    const capped = callView(await s.calls.run('bash', { command: 'seq 1 500' }, { countTokens }), 'bash', {});
    expect(capped.elided).toEqual({ line: 201, count: 200 });
    expect(capped.text.split('\n')[201]).toBe('[200 lines elided, full output #0003]');
  });
});

describe("a task call's subagent", () => {
  it('is named by the result’s attachment, the same live as stored; other results have none', async () => {
    const s = Session.create({ store, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, now: () => new Date() }, { root: path.join(tmp, 'ws'), kind: 'agent', mode: 'auto' });
    const result = await s.calls.run('bash', { command: 'echo hi' });
    store.insertResult({ ...store.getResult(s.id, result.number)!, number: 9 }, [
      { mimeType: 'text/plain', data: Buffer.from('x') },
      { mimeType: SUBAGENT_MIME, data: Buffer.from(JSON.stringify({ sessionId: 42 })) },
    ]);
    const attachments = store.listAttachments(s.id, 9);
    expect(toolView(store.getResult(s.id, 9), 'task', {}, 9, attachments).subagent).toEqual({ sessionId: 42 });
    expect(callView({ ...result, number: 9 }, 'task', {}, attachments).subagent).toEqual({ sessionId: 42 });
    expect(callView(result, 'bash', {}, store.listAttachments(s.id, result.number))).not.toHaveProperty('subagent');
    expect(subagentLink([{ mimeType: SUBAGENT_MIME, data: Buffer.from('not json') }])).toBeUndefined();
  });
});
