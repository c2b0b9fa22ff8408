/**
 * The server engine against a real llama-server (built by scripts/buildLlamaServer.sh), serving a
 * generated test GGUF with --jinja on a free loopback port: deterministic sessions with tool calls
 * through the agent loop, the cache figures the server reports, and every fault of issue 11 point 3
 * — on the real server where it produces the fault, through a loopback proxy for the rest.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextView, type ContextView } from '../core/context/contextView.js';
import type { Conversation } from '../core/engine/types.js';
import { DEFAULT_PROMPTS_DIR } from '../core/prompts/buildSystemPrompt.js';
import type { LoopEvent } from '../core/turn/loop.js';
import { Session } from '../core/session/session.js';
import { ToolRegistry } from '../core/tools/registry.js';
import { SqliteStore } from '../db/store.js';
import { loadModel } from '../llm/model.js';
import { writeTestModel } from '../llm/testModel/makeTestModel.js';
import { openAgent, openEngine } from '../openEngine.js';
import { connectServer, listModels, serverModelId } from './connect.js';
import { ServerEngine } from './engine.js';
import { ServerError } from './errors.js';
import { startFaultProxy } from '../../test/faultProxy.js';
import { scriptReply } from './scripted.js';
import { freePort, llamaServerMissing, mustHaveLlamaServer, startLlamaServer, type RunningServer } from '../../test/llamaServer.js';
import { cliTyped, tempKeelHome } from '../../test/cliRun.js';

const missing = llamaServerMissing();
const CONTEXT = 8192;

describe.skipIf(missing !== undefined && !mustHaveLlamaServer)('the server engine on a real llama-server', () => {
  let dir: string;
  let model: string;
  let server: RunningServer;

  beforeAll(async () => {
    if (missing) throw new Error(missing);
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-server-')));
    model = path.join(dir, 'test.gguf');
    writeTestModel(model);
    server = await startLlamaServer({ model, contextSize: CONTEXT, slots: 2, alias: 'test-model' });
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A session in a temporary workspace with a real store and the real tools. */
  function sessionOn(files: Record<string, string> = {}) {
    const root = fs.mkdtempSync(path.join(dir, 'ws-'));
    for (const [rel, text] of Object.entries(files)) fs.writeFileSync(path.join(root, rel), text);
    const store = new SqliteStore(path.join(root, '..', `${path.basename(root)}.db`));
    const deps = { store, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, now: () => new Date('2026-12-01T10:00:00') };
    return { root, store, deps };
  }

  it('lists the models and reads the slots and context from /props', async () => {
    expect(await listModels({ url: `${server.url}/v1` })).toEqual(['test-model']);
    const c = await connectServer({ url: server.url, model: 'test-model' });
    expect(c.llama).toMatchObject({ contextSize: CONTEXT, slots: 2 });
    expect(c.llama!.template).toContain('<tool_call>');
    const engine = openEngine({ kind: 'server', server: c });
    expect(engine.id).toBe(serverModelId(server.url, 'test-model'));
    expect(engine.contextSize).toBe(CONTEXT);
    await engine.dispose();
  });

  it('streams a reply from /v1/chat/completions and reports the cached prefix of the next request', async () => {
    const engine = new ServerEngine(await connectServer({ url: server.url, model: 'test-model' }));
    const c: Conversation = { system: 'You are a test.', tools: [], promptDate: '', messages: [{ role: 'user', text: 'Say something about files and lines.' }] };
    let streamed = '';
    const first = await engine.generate(c, { maxTokens: 12, temperature: 0, onText: (d) => { streamed += d; } });
    expect(first.usage.promptTokens).toBeGreaterThan(10);
    expect(first.usage.engine?.server?.cachedTokens).toBe(0);
    expect(streamed).toBe(first.reply.words);
    c.messages.push({ role: 'model', replies: [{ text: first.reply.words, calls: [] }] }, { role: 'user', text: 'And again.' });
    const second = await engine.generate(c, { maxTokens: 4, temperature: 0 });
    expect(second.usage.engine?.server).toMatchObject({ change: null, url: server.url });
    expect(second.usage.reusedTokens).toBeGreaterThanOrEqual(first.usage.promptTokens);
    expect(second.usage.lossCause).toBeUndefined();
    await engine.dispose();
  });

  it('runs a deterministic agent session with tool calls through the loop, every request byte-stable and cached', async () => {
    const { root, store, deps } = sessionOn({ 'a.txt': 'hello from a\n' });
    const conn = await connectServer({ url: server.url, model: 'test-model' });
    const engine = openEngine({ kind: 'server', server: conn });
    const session = Session.create(deps, { root, kind: 'agent', mode: 'auto', model: engine.id });
    const replies: string[] = [];
    const events: LoopEvent[] = [];
    const agent = openAgent({ session, store, engine, maxReplyTokens: 256, script: { next: () => replies.shift() }, onEvent: (e) => events.push(e) });
    try {
      replies.push(scriptReply('Reading it.', [{ name: 'read', arguments: { path: 'a.txt' } }]), scriptReply('It says hello from a.'));
      expect(await agent.send('What does a.txt say?')).toBe('It says hello from a.');
      const tool = events.find((e) => e.type === 'tool');
      expect(tool).toMatchObject({ name: 'read', args: { path: 'a.txt' } });
      expect(tool?.type === 'tool' && tool.result.text).toContain('hello from a');
      replies.push(scriptReply('', [{ name: 'bash', arguments: { command: 'echo hi' } }]), scriptReply('Done.'));
      expect(await agent.send('Run echo.')).toBe('Done.');
      const rows = agent.requests();
      expect(rows).toHaveLength(4);
      for (const [i, r] of rows.entries()) {
        expect(r.model).toBe(engine.id);
        expect(r.engine?.server?.url).toBe(server.url);
        expect(r.engine?.server?.change).toBeNull();
        expect(r.engine?.server?.slot).toBeDefined();
        if (i === 0) continue;
        // Everything the previous request sent (and its reply) came from the server's cache.
        expect(r.engine?.server?.cachedTokens).toBeGreaterThanOrEqual(rows[i - 1].promptTokens);
        expect(r.cause).toBeUndefined();
        expect(r.reusedTokens).toBe(r.cachedBefore);
      }
      // The stored reply keeps the call's id and arguments as the server saw them.
      const stored = store.listReplies(session.id)[0].calls[0];
      expect(JSON.parse(stored.raw)).toEqual({ id: 'call_1_0', name: 'read', arguments: '{"path":"a.txt"}' });

      // An undo changes what was sent: the record names the first changed message and the cause.
      agent.undo();
      replies.push(scriptReply('Again.'));
      await agent.send('Something else.');
      const last = agent.requests().at(-1)!;
      expect(last.cause).toBe('undo');
      expect(last.engine?.server?.change?.message).toBeGreaterThan(0);
      expect(last.reusedTokens).toBeLessThan(rows[3].promptTokens);
    } finally {
      await agent.dispose();
      store.close();
    }
  }, 120_000);

  it('context view: every request\'s parts sum to the server\'s prompt_tokens, results found by id, cached as Keel knows the slot', async () => {
    const { root, store, deps } = sessionOn({ 'a.txt': 'hello from a\n' });
    const engine = new ServerEngine(await connectServer({ url: server.url, model: 'test-model' }));
    const session = Session.create(deps, { root, kind: 'agent', mode: 'auto', model: engine.id });
    const replies: string[] = [];
    const agent = openAgent({ session, store, engine, maxReplyTokens: 256, script: { next: () => replies.shift() } });
    // Each request's own conversation, viewed just before it is sent.
    const views: ContextView[] = [];
    const generate = engine.generate.bind(engine);
    engine.generate = async (c, o) => (views.push(await contextView(engine, c)), generate(c, o));
    try {
      replies.push(scriptReply('Reading it.', [{ name: 'read', arguments: { path: 'a.txt' } }]), scriptReply('It says hello from a.'));
      await agent.send('What does a.txt say?');
      replies.push(scriptReply('', [{ name: 'list', arguments: {} }]), scriptReply('Done.'));
      await agent.send('List the folder.');
      const next = await agent.context();
      const rows = agent.requests();
      expect(views).toHaveLength(4);
      for (const [i, view] of views.entries()) {
        expect(view.exact).toBe(true);
        expect(view.parts.reduce((n, p) => n + p.tokens, 0)).toBe(view.promptTokens);
        expect(view.promptTokens).toBe(rows[i].promptTokens);
        expect(view.parts.filter((p) => p.kind === 'result' && p.located).map((p) => p.result)).toEqual([1, 2].slice(0, i < 1 ? 0 : i < 3 ? 1 : 2));
        // What Keel knows the slot holds (the previous prompt and its reply) is what the server reports it took;
        // before its first request the session knows nothing of the slot (an earlier session's prefix may still be there).
        if (i === 0) expect(view.cachedTokens).toBe(0);
        else expect(view.cachedTokens).toBe(rows[i].reusedTokens);
      }
      expect(next.request).toBe('next message');
      expect(next.parts.reduce((n, p) => n + p.tokens, 0)).toBe(next.promptTokens);
      replies.push(scriptReply('Sure.'));
      await agent.send('One more.');
      expect(agent.requests().at(-1)!.promptTokens).toBeGreaterThan(next.promptTokens - next.parts.at(-1)!.tokens);
      expect(next.cachedTokens).toBe(agent.requests().at(-1)!.reusedTokens);
    } finally {
      await agent.dispose();
      store.close();
    }
  }, 120_000);

  it('names a loss nobody on Keel\'s side caused "server evicted the prefix"', async () => {
    // One slot and no RAM prompt cache: another session's request really evicts the prefix.
    const small = await startLlamaServer({ model, contextSize: 4096, slots: 1, alias: 'test', extraArgs: ['--cache-ram', '0'] });
    const conn = await connectServer({ url: small.url, model: 'test' });
    const a = new ServerEngine(conn);
    const c = new ServerEngine(conn); // more sessions than slots: it shares a's slot
    try {
      expect(c.slotId).toBe(a.slotId);
      const conv = (text: string): Conversation => ({ system: `Session ${text}.`, tools: [], promptDate: '', messages: [{ role: 'user', text }] });
      await a.generate(conv('first words of a'), { maxTokens: 2, temperature: 0, scripted: 'ok' });
      await c.generate(conv('another session entirely'), { maxTokens: 2, temperature: 0, scripted: 'ok' });
      const again = conv('first words of a');
      again.messages.push({ role: 'model', replies: [{ text: 'ok', calls: [] }] }, { role: 'user', text: 'more' });
      const r = await a.generate(again, { maxTokens: 2, temperature: 0, scripted: 'ok' });
      expect(r.usage.engine?.server?.change).toBeNull();
      expect(r.usage.reusedTokens).toBeLessThan(r.usage.cachedBefore);
      expect(r.usage.lossCause).toBe('server evicted the prefix');
    } finally {
      for (const e of [a, c]) await e.dispose();
      await small.stop();
    }
  }, 60_000);

  it('moves a session from a local model to the server mid-session, recorded as "model switched"', async () => {
    const { root, store, deps } = sessionOn();
    const loaded = await loadModel({ modelPath: model, threads: 1, contextSize: 16384 });
    const session = Session.create(deps, { root, kind: 'agent', mode: 'auto', model: loaded.path });
    const replies: string[] = ['Local answer.', scriptReply('Server answer.')];
    const agent = openAgent({ session, store, engine: openEngine({ kind: 'local', model: loaded }), maxReplyTokens: 64, script: { next: () => replies.shift() } });
    try {
      expect(await agent.send('Hello.')).toBe('Local answer.');
      const before = session.systemPrompt;
      const engine = openEngine({ kind: 'server', server: await connectServer({ url: server.url, model: 'test-model' }) });
      await agent.switchEngine(engine);
      expect(await agent.send('Hello again.')).toBe('Server answer.');
      const rows = agent.requests();
      expect(rows[1]).toMatchObject({ model: engine.id, cause: 'model switched' });
      expect(store.getSession(session.id)?.model).toBe(engine.id);
      expect(before).toBeTypeOf('string');
    } finally {
      await agent.dispose();
      await loaded.dispose();
      store.close();
    }
  }, 120_000);

  it('keel new --server URL --model NAME makes a session on the server; a wrong one says what is wrong', async (ctx) => {
    const home = path.join(tempKeelHome(ctx, 'keel-server-cli-'), 'home');
    const ws = fs.mkdtempSync(path.join(dir, 'cli-ws-'));
    const made = await cliTyped([], 'new', '--workspace', ws, '--server', server.url, '--model', 'test-model');
    expect(made.code).toBe(0);
    expect(made.out).toContain(`on ${serverModelId(server.url, 'test-model')}`);
    const store = new SqliteStore(path.join(home, 'keel.db'));
    expect(store.getSession(1)?.model).toBe(serverModelId(server.url, 'test-model'));
    store.close();
    const unknown = await cliTyped([], 'new', '--workspace', ws, '--server', server.url, '--model', 'nope');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain(`keel: The server at ${server.url} does not serve a model "nope". It serves: test-model.`);
    const nobody = `http://127.0.0.1:${await freePort()}`;
    const refused = await cliTyped([], 'new', '--workspace', ws, '--server', nobody, '--model', 'x');
    expect(refused.err).toContain(`keel: Nothing is listening at ${nobody}`);
  }, 60_000);

  describe('faults', () => {
    it('nothing listening: connection refused, naming the URL', async () => {
      const url = `http://127.0.0.1:${await freePort()}`;
      const e = await connectServer({ url, model: 'x' }).catch((err: unknown) => err);
      expect(e).toBeInstanceOf(ServerError);
      expect(e).toMatchObject({ fault: 'refused', message: expect.stringContaining(url) });
      expect((e as Error).message).toMatch(/Start the server/);
    });

    it('a wrong URL (a path the server does not have) and an unknown model', async () => {
      const wrong = await connectServer({ url: `${server.url}/nope`, model: 'test-model' }).catch((err: unknown) => err);
      expect(wrong).toMatchObject({ fault: 'not found', message: expect.stringContaining(`${server.url}/nope`) });
      const unknown = await connectServer({ url: server.url, model: 'gpt-9' }).catch((err: unknown) => err);
      expect(unknown).toMatchObject({ fault: 'unknown model' });
      expect((unknown as Error).message).toContain('It serves: test-model');
    });

    it('a wrong API key (401), the key never in a message or a record', async () => {
      const keyed = await startLlamaServer({ model, contextSize: 2048, apiKey: 'right-key-0123', alias: 'test' });
      try {
        const e = await connectServer({ url: keyed.url, model: 'test', apiKey: 'wrong-key-4567' }).catch((err: unknown) => err);
        expect(e).toMatchObject({ fault: 'key', status: 401, message: expect.stringContaining(keyed.url) });
        expect((e as Error).message).not.toContain('wrong-key-4567');
        const models = await listModels({ url: keyed.url, apiKey: 'right-key-0123' });
        const engine = new ServerEngine(await connectServer({ url: keyed.url, model: models[0], apiKey: 'right-key-0123' }));
        const r = await engine.generate({ system: 's', tools: [], promptDate: '', messages: [{ role: 'user', text: 'hi' }] }, { maxTokens: 2, temperature: 0, scripted: 'ok' });
        expect(JSON.stringify(r)).not.toContain('right-key-0123');
        await engine.dispose();
      } finally {
        await keyed.stop();
      }
    }, 60_000);

    it('the server killed mid-stream: the partial reply is kept, marked interrupted, and said', async () => {
      const doomed = await startLlamaServer({ model, contextSize: 4096, alias: 'test' });
      const notices: string[] = [];
      try {
        const engine = new ServerEngine(await connectServer({ url: doomed.url, model: 'test', onNotice: (t) => notices.push(t) }));
        const r = await engine.generate({ system: 's', tools: [], promptDate: '', messages: [{ role: 'user', text: 'Write a long text.' }] }, {
          maxTokens: 3000, temperature: 0, onText: () => { doomed.process.kill('SIGKILL'); },
        });
        expect(r.stoppedBy).toBe('stopped');
        expect(r.reply.words).toMatch(/\[reply interrupted: the connection was cut\]$/);
        expect(notices.join('\n')).toContain(`The reply from ${doomed.url} was interrupted`);
        // The next request finds nothing listening, and says so.
        await expect(engine.generate({ system: 's', tools: [], promptDate: '', messages: [{ role: 'user', text: 'x' }] }, { maxTokens: 2, temperature: 0 }))
          .rejects.toMatchObject({ fault: 'refused' });
      } finally {
        await doomed.stop();
      }
    }, 60_000);

    it('429 and 503 are retried with backoff, each retry shown; past the retries the error says so', async () => {
      const proxy = await startFaultProxy(server.url);
      const notices: string[] = [];
      try {
        const conn = await connectServer({ url: proxy.url, model: 'test-model', retryDelaysMs: [20, 40], onNotice: (t) => notices.push(t) });
        const engine = new ServerEngine(conn);
        const conv: Conversation = { system: 's', tools: [], promptDate: '', messages: [{ role: 'user', text: 'hi' }] };
        proxy.faults.push({ kind: 'busy', status: 503, times: 1 }, { kind: 'busy', status: 429, times: 1 });
        const r = await engine.generate(conv, { maxTokens: 2, temperature: 0 });
        expect(r.usage.promptTokens).toBeGreaterThan(0);
        expect(proxy.answered).toEqual([503, 429]);
        expect(notices).toEqual([
          `The server at ${proxy.url} is busy (HTTP 503); retry 1 of 2 in 0.0 s.`,
          `The server at ${proxy.url} is busy (HTTP 429); retry 2 of 2 in 0.0 s.`,
        ]);
        proxy.faults.push({ kind: 'busy', status: 503, times: 3 });
        await expect(engine.generate(conv, { maxTokens: 2, temperature: 0 })).rejects.toMatchObject({ fault: 'busy', status: 503, message: expect.stringContaining(proxy.url) });
        await engine.dispose();
      } finally {
        await proxy.close();
      }
    }, 60_000);

    it('a malformed stream and a server that goes quiet are errors naming the URL; nothing is stored', async () => {
      const proxy = await startFaultProxy(server.url);
      try {
        const engine = new ServerEngine(await connectServer({ url: proxy.url, model: 'test-model', timeoutMs: 500 }));
        const conv: Conversation = { system: 's', tools: [], promptDate: '', messages: [{ role: 'user', text: 'hi' }] };
        proxy.faults.push({ kind: 'malformed' });
        await expect(engine.generate(conv, { maxTokens: 2, temperature: 0 })).rejects.toMatchObject({ fault: 'malformed', message: expect.stringContaining(`${proxy.url} sent a malformed stream`) });
        proxy.faults.push({ kind: 'hang' });
        await expect(engine.generate(conv, { maxTokens: 2, temperature: 0 })).rejects.toMatchObject({ fault: 'timeout', message: expect.stringContaining(`${proxy.url} did not answer`) });
        await engine.dispose();
      } finally {
        await proxy.close();
      }
    }, 60_000);

    it('a tool call with bad JSON arguments gets the usual error result, and the session goes on', async () => {
      const proxy = await startFaultProxy(server.url);
      const { root, store, deps } = sessionOn({ 'a.txt': 'a\n' });
      const engine = openEngine({ kind: 'server', server: await connectServer({ url: proxy.url, model: 'test-model' }) });
      const session = Session.create(deps, { root, kind: 'agent', mode: 'auto', model: engine.id });
      const events: LoopEvent[] = [];
      const replies: (string | undefined)[] = [undefined, scriptReply('Sorry.')];
      const agent = openAgent({ session, store, engine, maxReplyTokens: 64, script: { next: () => replies.shift() }, onEvent: (e) => events.push(e) });
      try {
        proxy.faults.push({ kind: 'bad-arguments', name: 'read', arguments: '{"path": "a.txt' });
        expect(await agent.send('Read a.txt.')).toBe('Sorry.');
        const tool = events.find((e) => e.type === 'tool');
        expect(tool?.type === 'tool' && tool.result.text).toMatch(/Error: .*not valid JSON/);
        // The bad arguments went back with the call's id, as a JSON string of what the model wrote.
        const last = proxy.bodies.filter((b) => b.path === '/apply-template').at(-1)!;
        expect(last.body).toContain(`"id":"call_bad","type":"function","function":{"name":"read","arguments":${JSON.stringify(JSON.stringify('{"path": "a.txt'))}}`);
        expect(JSON.parse(store.listReplies(session.id)[0].calls[0].raw).arguments).toBe('{"path": "a.txt');
      } finally {
        await agent.dispose();
        store.close();
        await proxy.close();
      }
    }, 60_000);
  });
});
