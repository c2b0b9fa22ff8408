/**
 * The task tool in the app, on the real service, store and engine (scripted replies): two subagents
 * of one reply run on sequences of their own of the parent's model, each a stored session the
 * session list does not show, their states and requests pushed under their own ids; the parent's
 * answer carries their answers in call order, its cache untouched by them, and the second child
 * starts from the prefix the first evaluated.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KeelEvent } from '../contract.js';
import { DEFAULT_PROMPTS_DIR } from '../core/prompts/buildSystemPrompt.js';
import { SqliteStore } from '../db/store.js';
import { loadModel } from '../llm/model.js';
import { writeTestModel } from '../llm/testModel/makeTestModel.js';
import { callSyntax, formatCall } from '../llm/toolCalls.js';
import { sessionWrapper } from '../llm/wrapper.js';
import { KeelService } from './service.js';

let dir: string;
let store: SqliteStore;
let service: KeelService;
let events: KeelEvent[];
/** Each session's scripted replies, by its id (children run at once: one shared queue would race). */
const replies = new Map<number, string[]>();

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-subagents-app-')));
  fs.mkdirSync(path.join(dir, 'ws'));
  fs.mkdirSync(path.join(dir, 'models'));
  writeTestModel(path.join(dir, 'models', 'tiny.gguf'));
  store = new SqliteStore(path.join(dir, 'keel.db'));
  events = [];
  replies.clear();
  service = new KeelService({
    store, dataFolder: path.join(dir, 'data'), promptsDir: DEFAULT_PROMPTS_DIR, emit: (e) => events.push(e),
    threads: 1, contextSize: 16384, scriptFor: (id) => ({ next: () => replies.get(id)?.shift() }),
  });
});

afterEach(async () => {
  await service.close();
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('subagents in the app', { timeout: 180_000 }, () => {
  it('runs two children at once on sequences of their own, hidden from the list, the parent cache untouched', async () => {
    await service.setModelsFolder(path.join(dir, 'models'));
    const [model] = await service.listModels();
    await service.loadModel(model.path);
    const parent = await service.createSession({ workspace: path.join(dir, 'ws'), kind: 'agent', mode: 'auto' });
    const loaded = await loadModel({ modelPath: model.path, threads: 1, contextSize: 4096 });
    const syntax = callSyntax(sessionWrapper(loaded.model, '2026-12-06'));
    await loaded.dispose();

    // The children's ids follow the parent's, in call order (each is created before it waits).
    const [first, second] = [parent.id + 1, parent.id + 2];
    replies.set(parent.id, [
      'Looking.',
      `${formatCall(syntax, 'task', { description: 'Find A', prompt: 'Where is A?' })}\n${formatCall(syntax, 'task', { description: 'Find B', prompt: 'Where is B?' })}`,
      'A and B are found.',
    ]);
    replies.set(first, ['A is in a.ts.']);
    replies.set(second, ['B is in b.ts.']);
    await service.send(parent.id, 'Hello.');
    await service.send(parent.id, 'Find A and B.');

    const view = await service.openSession(parent.id);
    const tools = view.turns.at(-1)!.parts.flatMap((p) => (p.type === 'tool' ? [p.tool] : []));
    expect(tools.map((t) => [t.name, t.text])).toEqual([['task', '[#0001]\nA is in a.ts.'], ['task', '[#0002]\nB is in b.ts.']]);
    expect(view.turns.at(-1)!.parts.at(-1)).toEqual({ type: 'text', text: 'A and B are found.' });

    // Each child is a stored session with its parent named, reached from the parent and not listed.
    expect(store.getSession(first)).toMatchObject({ parentId: parent.id, title: 'Find A' });
    expect(store.getSession(second)).toMatchObject({ parentId: parent.id, title: 'Find B' });
    expect((await service.listSessions()).map((s) => s.id)).toEqual([parent.id]);
    expect((await service.openSession(first)).turns.map((t) => [t.words, t.parts])).toEqual([['Where is A?', [{ type: 'text', text: 'A is in a.ts.' }]]]);

    // Their states and their own requests were pushed under their ids.
    const states = (id: number) => events.flatMap((e) => (e.type === 'subagent' && e.childId === id ? [e.state] : []));
    expect(states(first)).toEqual(['waiting', 'running', 'answered']);
    expect(states(second)).toEqual(['waiting', 'running', 'answered']);
    expect(events.some((e) => e.type === 'subagent' && e.sessionId !== parent.id)).toBe(false);
    expect(events.filter((e) => e.type === 'request' && e.sessionId === second)).toHaveLength(1);

    // The parent's cache was not touched: its request after the tasks re-read nothing it held.
    const [, calling, after] = await service.requests(parent.id);
    expect(after.cachedBefore).toBeGreaterThan(calling.promptTokens);
    expect(after.reusedTokens).toBe(after.cachedBefore);

    // The children share their prefix (the parent's system prompt, their tools): read once, copied once.
    const [a, b] = [(await service.requests(first))[0], (await service.requests(second))[0]];
    expect(a.promptTokens).toBe(b.promptTokens);
    const shared = Math.min(a.reusedTokens, b.reusedTokens);
    expect(shared).toBeGreaterThan(a.promptTokens / 2);
    expect(a.newTokens + a.reusedTokens).toBe(a.promptTokens);
  });
});
