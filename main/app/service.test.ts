import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KeelEvent } from '../contract.js';
import { DEFAULT_PROMPTS_DIR } from '../core/prompts/buildSystemPrompt.js';
import { Session } from '../core/session/session.js';
import { ToolRegistry } from '../core/tools/registry.js';
import { SqliteStore } from '../db/store.js';
import { callSyntax, formatCall } from '../llm/toolCalls.js';
import { sessionWrapper } from '../llm/wrapper.js';
import { loadModel } from '../llm/model.js';
import { writeTestModel } from '../llm/testModel/makeTestModel.js';
import { checkCall } from './checkCall.js';
import { KeelService } from './service.js';
import { closeTestService, openTestService, type TestService } from '../../test/appService.js';

async function waitFor(done: () => boolean, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (!done()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

let dir: string;
let store: SqliteStore;
let service: KeelService;
let events: KeelEvent[];
const replies: string[] = [];

let t: TestService;
beforeEach(() => {
  t = openTestService('keel-service-', replies);
  ({ dir, store, service, events } = t);
  fs.writeFileSync(path.join(dir, 'ws', 'a.txt'), 'one\ntwo\n');
});

afterEach(() => closeTestService(t));

describe('KeelService: what the UI can ask, on the real store and engine', { timeout: 180_000 }, () => {
  it('opens the native folder dialog where the host has one, and says so in the state', async () => {
    expect((await service.getState()).canPickFolder).toBe(false);
    expect(await service.pickFolder()).toBeUndefined();
    const desktop = new KeelService({
      store, dataFolder: path.join(dir, 'data'), promptsDir: DEFAULT_PROMPTS_DIR, emit: () => undefined, pickFolder: async () => '/picked',
    });
    expect((await desktop.getState()).canPickFolder).toBe(true);
    expect(await desktop.pickFolder()).toBe('/picked');
  });

  it('tells the UI when the CLI creates or deletes a session on the same store, once per change', async () => {
    service.checkOutside();
    expect(events).toEqual([]);
    const cli = new SqliteStore(store.file);
    try {
      const made = Session.create({ store: cli, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, now: () => new Date() },
        { root: path.join(dir, 'ws'), kind: 'chat', mode: 'ask' });
      service.checkOutside();
      service.checkOutside();
      expect(events).toEqual([{ type: 'sessions-changed' }]);
      expect((await service.listSessions()).map((s) => s.id)).toEqual([made.id]);
      cli.deleteSession(made.id);
      service.checkOutside();
      expect(events).toHaveLength(2);
    } finally {
      cli.close();
    }
  });

  it('runs a turn with a tool call and shows it, notes apart from words, results as sent', async () => {
    await service.setModelsFolder(path.join(dir, 'models'));
    const models = await service.listModels();
    expect(models.map((m) => m.name)).toEqual(['tiny.gguf']);
    await service.loadModel(models[0].path);
    expect(events.some((e) => e.type === 'model-loaded')).toBe(true);
    const summary = await service.createSession({ workspace: path.join(dir, 'ws'), kind: 'agent', mode: 'auto' });

    const loaded = await loadModel({ modelPath: models[0].path, threads: 1, contextSize: 4096 });
    const syntax = callSyntax(sessionWrapper(loaded.model, '2026-11-30'));
    await loaded.dispose();
    replies.push(formatCall(syntax, 'read', { path: 'a.txt' }), 'It holds one and two.');
    await service.send(summary.id, 'What is in a.txt?');

    const view = await service.openSession(summary.id);
    // Titled after its folder before any message, after its first message once sent.
    expect(summary.title).toBe('ws');
    expect(view.summary.title).toBe('What is in a.txt?');
    expect(view.turns).toHaveLength(1);
    expect(view.turns[0].words).toBe('What is in a.txt?');
    expect(view.turns[0].notes.map((n) => n.kind)).toEqual(['date']);
    const tool = view.turns[0].parts.find((p) => p.type === 'tool');
    expect(tool?.type === 'tool' && tool.tool.text).toMatch(/^\[#0001 a\.txt lines 1-2 of 2 sha [0-9a-f]{8}\]\n1: one\n2: two$/);
    expect(view.turns[0].parts.at(-1)).toEqual({ type: 'text', text: 'It holds one and two.' });
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['message', 'text', 'tool', 'request', 'turn-ended']));
    // The live event shows the call as the stored session does, made from the value the loop handed on.
    const live = events.find((e) => e.type === 'tool');
    expect(live?.type === 'tool' && live.tool).toEqual(tool?.type === 'tool' && tool.tool);
    expect(live?.type === 'tool' && live.tool.tokens).toBeGreaterThan(0);

    const recall = await service.recall(summary.id, '#1');
    expect(recall).toMatchObject({ id: '#0001', tool: 'read', pathGiven: 'a.txt', inRequest: true, lines: ['1: one', '2: two'], totalLines: 2 });
    expect((await service.requests(summary.id)).length).toBe(2);
    await expect(service.recall(summary.id, '#0099')).rejects.toThrow('No stored result #0099');

    // The next message's request by part, as the Context panel shows it: summing to its prompt tokens, all but the message cached.
    const context = await service.context(summary.id);
    expect(context.parts.reduce((n, p) => n + p.tokens, 0)).toBe(context.promptTokens);
    expect(context.parts.find((p) => p.kind === 'result')).toMatchObject({ result: 1, tool: 'read', turn: 1, located: true });
    expect(context.parts.at(-1)!.kind).toBe('next');
    expect(context.cachedTokens).toBe(context.promptTokens - context.parts.at(-1)!.newTokens);

    // A later session remembers the model.
    expect((await service.getState()).lastModel).toBe(models[0].path);
  });

  it('prices an action before it is taken, asks above the person\'s limit, and refuses what it cannot price', async () => {
    await service.setModelsFolder(path.join(dir, 'models'));
    await service.loadModel(path.join(dir, 'models', 'tiny.gguf'));
    const summary = await service.createSession({ workspace: path.join(dir, 'ws'), kind: 'chat', mode: 'ask' });
    replies.push('One.');
    await service.send(summary.id, 'Say one.');
    const seq = (await service.openSession(summary.id)).turns[0].seq;
    const context = await service.context(summary.id);

    // Undo (a take-back without a turn) is the last turn's: the cached prefix before it stays, so it re-reads little; exact.
    const undo = await service.price(summary.id, { kind: 'take back' });
    expect(undo).toEqual({ ...(await service.price(summary.id, { kind: 'take back', turn: seq })), action: 'take back' });
    expect(undo.exact).toBe(true);
    expect(undo.tokens).toBeLessThan(context.cachedTokens);
    // A model switch re-reads every token the cache holds now; timed from this session's own request.
    const change = await service.price(summary.id, { kind: 'switch model' });
    expect(change).toMatchObject({ action: 'switch model', tokens: context.cachedTokens, exact: false, asks: false });
    expect(change.seconds).toBeGreaterThan(0);
    expect(change.text).toMatch(new RegExp(`^re-reads about ${context.cachedTokens} tokens, about [\\d.]+ (s|min) on this machine$`));
    expect(change.askAboveSeconds).toBeUndefined();

    // The limit, as typed in Settings: saved to settings.json, shown in the state, and the price asks above it.
    expect(await service.setAskAboveSeconds(' 0 ')).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'data', 'settings.json'), 'utf8')).askAboveSeconds).toBe(0);
    expect((await service.getState()).askAboveSeconds).toBe(0);
    expect(await service.price(summary.id, { kind: 'switch model' })).toMatchObject({ asks: true, askAboveSeconds: 0 });
    await expect(service.setAskAboveSeconds('-1')).rejects.toThrow('"-1" is not a number of seconds: give 0 or more');
    await expect(service.setAskAboveSeconds('soon')).rejects.toThrow('is not a number of seconds');
    expect((await service.getState()).askAboveSeconds).toBe(0);
    expect(await service.setAskAboveSeconds('')).toBeUndefined();
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'data', 'settings.json'), 'utf8'))).not.toHaveProperty('askAboveSeconds');
    expect(await service.price(summary.id, { kind: 'switch model' })).toMatchObject({ asks: false });

    await expect(service.price(summary.id, { kind: 'delete', turn: seq + 5 })).rejects.toThrow(`Turn ${seq + 5} is not in session ${summary.id}'s history.`);
    await expect(service.price(summary.id, { kind: 'delete' })).rejects.toThrow('A delete names its turn.');
    // Never while the session answers.
    replies.push('Two.');
    const sending = service.send(summary.id, 'Say two.');
    await expect(service.price(summary.id, { kind: 'compact' })).rejects.toThrow('The session is answering; stop it first.');
    await sending;

    // Two prices at once on a session not yet open open its loop once: deleting it then lets go of the session entirely.
    const fresh = await service.createSession({ workspace: path.join(dir, 'ws'), kind: 'chat', mode: 'ask' });
    const [tools, compact] = await Promise.all([service.price(fresh.id, { kind: 'new tool list' }), service.price(fresh.id, { kind: 'compact' })]);
    expect([tools.action, compact.action]).toEqual(['new tool list', 'compact']);
    await service.deleteSession(fresh.id);
    expect(fs.existsSync(path.join(dir, 'session-locks', `${fresh.id}.lock`))).toBe(false);
  });

  it("reports a load's real progress (node-llama-cpp's onLoadProgress) before the model is loaded", async () => {
    const big = path.join(dir, 'models', 'big.gguf');
    writeTestModel(big, { embedding: 256, layers: 8, heads: 4, ff: 512 });
    await service.loadModel(big);
    const progress = events.flatMap((e) => (e.type === 'model-progress' && e.path === big ? [e.fraction] : []));
    const loadedAt = events.findIndex((e) => e.type === 'model-loaded' && e.path === big);
    expect(progress.some((f) => f > 0 && f < 1)).toBe(true);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(events.findIndex((e) => e.type === 'model-progress')).toBeLessThan(loadedAt);
    expect((await service.getState()).loadedSetups?.[big]).toBeDefined();
  });

  it('refuses to switch a session to a model that cannot load, naming the path, and changes nothing', async () => {
    await service.setModelsFolder(path.join(dir, 'models'));
    const tiny = (await service.listModels())[0].path;
    await service.loadModel(tiny);
    const { id } = await service.createSession({ workspace: path.join(dir, 'ws'), kind: 'chat', mode: 'auto' });
    replies.push('Hello.');
    await service.send(id, 'Hi.');
    const mistyped = path.join(dir, 'models', 'tyni.gguf');
    const notGguf = path.join(dir, 'ws', 'a.txt');
    await expect(service.switchModel(id, mistyped)).rejects.toThrow(`The model file ${mistyped} does not exist.`);
    await expect(service.switchModel(id, notGguf)).rejects.toThrow(`The file ${notGguf} is not a GGUF model`);
    expect(store.getSession(id)?.model).toBe(tiny);
    // The next request reuses the cache: no "model switched" re-read.
    replies.push('Still here.');
    await service.send(id, 'Again.');
    const last = (await service.requests(id)).at(-1)!;
    expect(last.cause ?? null).not.toBe('model switched');
    expect(last.reusedTokens).toBeGreaterThan(0);
  });

  it('marks a reply the person stopped as stopped, and a regenerated one that ran to its end as not', async () => {
    await service.setModelsFolder(path.join(dir, 'models'));
    const tiny = (await service.listModels())[0].path;
    await service.loadModel(tiny);
    const { id } = await service.createSession({ workspace: path.join(dir, 'ws'), kind: 'agent', mode: 'ask' });
    const loaded = await loadModel({ modelPath: tiny, threads: 1, contextSize: 4096 });
    const syntax = callSyntax(sessionWrapper(loaded.model, '2026-11-30'));
    await loaded.dispose();
    // A command that asks first: Stop while it waits denies it and cuts the reply there.
    replies.push(formatCall(syntax, 'bash', { command: 'touch made-by-model' }), 'Never said.');
    const sent = service.send(id, 'Make a file.');
    await waitFor(() => events.some((e) => e.type === 'approval'));
    await service.stop(id);
    await sent;
    const view = await service.openSession(id);
    expect(view.turns.at(-1)).toMatchObject({ status: 'done', stopped: true });
    expect(fs.existsSync(path.join(dir, 'ws', 'made-by-model'))).toBe(false);
    replies.splice(0, replies.length, 'A whole answer.');
    await service.regenerate(id);
    expect((await service.openSession(id)).turns.at(-1)?.stopped).toBeUndefined();
  });

  it('keeps working with more open sessions than the context has sequences', async () => {
    await service.setModelsFolder(path.join(dir, 'models'));
    await service.loadModel((await service.listModels())[0].path);
    const ids = [];
    for (let i = 0; i < 6; i++) ids.push((await service.createSession({ workspace: path.join(dir, 'ws'), kind: 'chat', mode: 'auto' })).id);
    for (const id of ids) {
      replies.push(`Hello ${id}.`);
      await service.send(id, 'hi');
    }
    for (const id of ids) expect((await service.openSession(id)).turns[0].parts).toEqual([{ type: 'text', text: `Hello ${id}.` }]);
  });

  it('saves a session’s cache once it is idle, never on a send’s path; a quick message puts the save off', async () => {
    const quick = new KeelService({
      store, dataFolder: path.join(dir, 'data2'), promptsDir: DEFAULT_PROMPTS_DIR, emit: () => undefined, threads: 1, contextSize: 16384,
      scriptFor: () => ({ next: () => replies.shift() }), idleSaveMs: 400,
    });
    const states = () => (fs.existsSync(path.join(dir, 'data2', 'state')) ? fs.readdirSync(path.join(dir, 'data2', 'state')) : []);
    try {
      await quick.setModelsFolder(path.join(dir, 'models'));
      await quick.loadModel((await quick.listModels())[0].path);
      const { id } = await quick.createSession({ workspace: path.join(dir, 'ws'), kind: 'chat', mode: 'auto' });
      replies.push('One.', 'Two.');
      await quick.send(id, 'first');
      expect(states()).toEqual([]);
      await quick.send(id, 'second');
      expect(states()).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(states()).toHaveLength(2);
      expect(states()).toContain(`session-${id}.bin.json`);
      // Deleting the session takes its saved cache with it.
      await quick.deleteSession(id);
      expect(states()).toEqual([]);
    } finally {
      await quick.close();
    }
  });

  it('refuses calls that do not fit the contract before anything runs', () => {
    expect(() => checkCall('openSession', ['1'])).toThrow('argument 1 must be an integer');
    expect(() => checkCall('rmrf', [])).toThrow('Unknown method');
    expect(() => checkCall('setMode', [1, 'yolo'])).toThrow('must be one of');
    expect(() => checkCall('send', [1, 'hi', 'extra'])).toThrow('at most 2 arguments');
    expect(checkCall('recall', [1, '#1'])).toBe('recall');
    expect(() => checkCall('send', [1])).toThrow('send needs 2 arguments');
    expect(() => checkCall('openSession', [])).toThrow('needs 1 argument');
  });

  it('refuses keys every object inherits: they are not in the contract\'s shapes', () => {
    const base = { workspace: '/w', kind: 'agent' };
    for (const key of ['constructor', 'toString', 'hasOwnProperty', '__defineGetter__']) {
      expect(() => checkCall('createSession', [{ ...base, [key]: 'x' }])).toThrow(`unknown property "${key}"`);
    }
    // As a WebSocket or IPC message arrives: JSON.parse makes "__proto__" an own key.
    expect(() => checkCall('createSession', [JSON.parse('{"workspace":"/w","kind":"agent","__proto__":{"mode":"auto"}}')])).toThrow('unknown property "__proto__"');
    expect(() => checkCall('setPlan', [1, [Object.create({ text: 'inherited' })]])).toThrow('is missing "text"');
    expect(checkCall('createSession', [base])).toBe('createSession');
  });

  it('reports a send without a model as a readable error', async () => {
    const summary = await service.createSession({ workspace: path.join(dir, 'ws'), kind: 'chat' });
    await expect(service.send(summary.id, 'hi')).rejects.toThrow('No model is loaded');
    expect(events.find((e) => e.type === 'error')).toMatchObject({ message: expect.stringContaining('No model is loaded') });
  });
});
