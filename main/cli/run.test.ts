import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../db/store.js';
import { databasePath, keelHome } from '../keelHome.js';
import type { LlamaEngine } from '../llm/engine.js';
import type { Mode } from '../core/state/types.js';
import { writeTestModel } from '../llm/testModel/makeTestModel.js';
import { formatCall } from '../llm/toolCalls.js';
import { newConversation } from './commands/conversation.js';
import { JsonEvent, JsonItem } from './commands/jsonEventSchema.js';
import { RUN_EXIT, runTurn } from './commands/run.js';
import { runCli } from './index.js';
import { collector, tempKeelHome } from '../../test/cliRun.js';
import { entry, GROWING, nodeServer, writeConfig } from '../../test/mcp/servers.js';

let tmp: string;
let root: string;
let model: string;

beforeEach((ctx) => {
  tmp = tempKeelHome(ctx, 'keel-run-');
  root = path.join(tmp, 'ws');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'a.txt'), 'hello\n');
  model = path.join(tmp, 'tiny.gguf');
  writeTestModel(model);
});

const FLAGS = ['--threads', '1', '--context', '8192', '--max-tokens', '4'];

async function run(args: string[], stdin?: string) {
  const out = collector();
  const err = collector();
  const code = await runCli(['run', '--workspace', root, '--model', model, ...FLAGS, ...args], { out, err, input: Readable.from(stdin === undefined ? [] : [stdin]) });
  return { code, out: out.text, err: err.text };
}

/** Every line of stdout is one JSON event of the documented shape. */
function events(out: string): Array<Record<string, unknown> & { type: string }> {
  expect(out.endsWith('\n')).toBe(true);
  return out.slice(0, -1).split('\n').map((line) => {
    const event = JSON.parse(line);
    JsonEvent.parse(event);
    return event;
  });
}

describe('docs/json-events.md', () => {
  it('documents every event type, and each example has the shape Keel writes', () => {
    const doc = fs.readFileSync(path.join(import.meta.dirname, '../../docs/json-events.md'), 'utf8');
    const examples = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].flatMap((m) => m[1].trim().split('\n'));
    const parsed = examples.map((line) => JsonEvent.parse(JSON.parse(line)));
    const types = new Set(parsed.map((e) => e.type === 'item.completed' ? `item:${e.item.type}` : e.type));
    const all = [
      ...JsonEvent.options.map((o) => o.shape.type.value).filter((t) => t !== 'item.completed'),
      ...JsonItem.options.map((i) => `item:${i.shape.type.value}`),
    ];
    expect([...types].sort()).toEqual([...all].sort());
  });
});

/** A new conversation on the test model whose replies are the returned `replies`, with collectors for its output. */
async function scripted(store: SqliteStore, o: { mode: Mode; contextSize?: number; maxSteps?: number }) {
  const replies: string[] = [];
  const out = collector();
  const err = collector();
  const c = await newConversation(store, {
    workspace: root, model, kind: 'agent', mode: o.mode, local: { threads: 1, contextSize: o.contextSize ?? 8192 }, maxSteps: o.maxSteps,
    script: { next: () => replies.shift() },
  }, { out: err, err });
  return { c, syntax: (c.agent.engine as LlamaEngine).syntax(c.session.promptDate), replies, out, err };
}

describe('keel run', { timeout: 120_000 }, () => {
  it('--json prints only JSON Lines: the session, each request with its cache figures, the turn with its usage', async () => {
    const r = await run(['--json', 'Say hi.']);
    expect(r.err).not.toContain('unexpected error');
    expect(r.code).toBe(RUN_EXIT.answered);
    const list = events(r.out);
    expect(list[0]).toEqual({ type: 'session.started', session_id: 1, workspace: root, model, engine: 'local', mode: 'ask', tools: expect.any(Array) });
    expect(list.map((e) => e.type)).toEqual(expect.arrayContaining(['turn.started', 'request.completed', 'turn.completed']));
    const request = list.find((e) => e.type === 'request.completed')!;
    expect(request).toMatchObject({ request: 1, reused_tokens: 0 });
    expect(request.prompt_tokens).toBe(request.new_tokens);
    expect(request.prompt_tokens).toBeGreaterThan(100);
    const done = list.at(-2)!;
    expect(done.type).toBe('turn.completed');
    expect(done.usage).toEqual({ input_tokens: request.prompt_tokens, cached_input_tokens: 0, output_tokens: request.output_tokens });
    // Last, the result in one line: the answer as the message items spell it, the requests, the time, the same usage.
    const answer = list.filter((e) => e.type === 'item.completed' && (e.item as { role?: string }).role === 'assistant').map((e) => (e.item as { text: string }).text).join('');
    const result = list.at(-1)!;
    expect(result).toEqual({
      type: 'result', subtype: 'success', is_error: false, result: answer, session_id: 1, num_turns: 1, duration_ms: expect.any(Number), usage: done.usage,
    });
    expect(result.duration_ms).toBeGreaterThan(0);
    // The person's message as sent, and apart: the words as typed, the note Keel attached (the date).
    const message = list.find((e) => e.type === 'item.completed')!.item as { text: string; words: string; notes: string[] };
    expect(message).toEqual({ type: 'message', role: 'user', text: expect.any(String), words: 'Say hi.', notes: [expect.stringMatching(/^Today's date is \d{4}-\d\d-\d\d\.$/)] });
    expect(message.text).toBe(`Say hi.\n\n${message.notes[0]}`);
    // The store has the session, titled after the prompt, with the tool list the init event named.
    const store = new SqliteStore(databasePath());
    try {
      expect(store.getSession(1)).toMatchObject({ root, title: 'Say hi.' });
      expect(list[0].tools).toEqual(store.getSession(1)!.tools!.map((t) => t.name));
      expect(list[0].tools).toEqual(expect.arrayContaining(['read', 'edit', 'bash', 'task']));
    } finally {
      store.close();
    }
  });

  it('a hook of the person that fails is told on standard error with its output; standard output stays JSON', async () => {
    fs.mkdirSync(keelHome(), { recursive: true });
    fs.writeFileSync(path.join(keelHome(), 'settings.json'), JSON.stringify({
      hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo the lint server is down >&2; exit 1' }] }] },
    }));
    const r = await run(['--json', 'Say hi.']);
    expect(r.code).toBe(RUN_EXIT.answered);
    expect(r.err).toContain(`The UserPromptSubmit hook \`echo the lint server is down >&2; exit 1\` (${path.join(keelHome(), 'settings.json')}) exited 1.\nthe lint server is down\n`);
    events(r.out);
  });

  it('reads the prompt from standard input with -, and prints only the answer without --json', async () => {
    const r = await run(['-'], 'Tell me about a.txt\n');
    expect(r.code).toBe(RUN_EXIT.answered);
    expect(r.err).toContain('Created session 1');
    expect(r.out).not.toContain('Created session');
    expect(r.out.endsWith('\n')).toBe(true);
  });

  it('keel say ID --json prints the next turn as the same events', async () => {
    expect((await run(['--json', 'First.'])).code).toBe(0);
    const out = collector();
    const err = collector();
    const code = await runCli(['say', '1', 'Second.', '--json', ...FLAGS], { out, err });
    expect(err.text).not.toContain('unexpected error');
    expect(code).toBe(0);
    const list = events(out.text);
    // The same init event as run's, for the session resumed.
    expect(list[0]).toEqual({ type: 'session.started', session_id: 1, workspace: root, model, engine: 'local', mode: 'ask', tools: expect.arrayContaining(['read', 'bash']) });
    expect(list.filter((e) => e.type === 'session.started')).toHaveLength(1);
    const done = list.at(-2)!;
    expect(done.type).toBe('turn.completed');
    expect(list.at(-1)).toMatchObject({ type: 'result', subtype: 'success', session_id: 1 });
    // A resumed session's first request re-reads (no saved cache from a 4-token turn is required), so only the figures' sum is checked.
    const requests = list.filter((e) => e.type === 'request.completed');
    expect((done.usage as { cached_input_tokens: number }).cached_input_tokens).toBe(requests.reduce((n, q) => n + (q.reused_tokens as number), 0));
  });

  it.each([
    [['--json'], 'keel run takes 1 argument, not none'],
    [['--json', '--approve', 'sometimes', 'x'], '--approve must be one of never, always'],
    [['--json', '--max-turns', '0', 'x'], '--max-turns needs a positive whole number'],
    [['--json', '--max-tokens', '0', 'x'], '--max-tokens needs a positive whole number, not "0"'],
    [['--json', '--max-tokens', 'lots', 'x'], '--max-tokens needs a positive whole number, not "lots"'],
    [['--json', '--frobnicate', 'x'], 'Unknown option'],
  ])('bad usage exits 2 and creates nothing (%#)', async (args, said) => {
    const r = await run(args);
    expect(r.code).toBe(RUN_EXIT.usage);
    expect(r.out).toBe('');
    expect(r.err).toContain(said);
    expect(fs.existsSync(databasePath()) ? new SqliteStore(databasePath()).listSessions() : []).toEqual([]);
  });

  it('a call that needs an approval in --approve never is a denial, and the run exits 3', async () => {
    const store = new SqliteStore(databasePath());
    try {
      const { c, syntax, replies, out, err } = await scripted(store, { mode: 'ask' });
      replies.push(formatCall(syntax, 'write', { path: 'b.txt', content: 'new\n' }), 'I could not write it.');
      const code = await runTurn(c, 'Write b.txt.', { json: true, approve: 'never' }, { out, err });
      expect(code).toBe(RUN_EXIT.needsApproval);
      expect(fs.existsSync(path.join(root, 'b.txt'))).toBe(false);
      const items = events(out.text).filter((e) => e.type === 'item.completed').map((e) => e.item as { type: string; text?: string; name?: string });
      expect(items.map((i) => i.type)).toEqual(['message', 'tool_call', 'denial', 'file_change', 'message']);
      // Codex's item for the refused change: the file it would have added, failed.
      expect(items[3]).toEqual({ type: 'file_change', id: '#0001', changes: [{ path: path.join(root, 'b.txt'), kind: 'add' }], status: 'failed' });
      items.splice(3, 1);
      expect(items[1]).toMatchObject({ name: 'write', arguments: { path: 'b.txt', content: 'new\n' } });
      expect(items[2].text).toMatch(/^\[#0001\]\nError: the person denied/);
      expect(items[3]).toEqual({ type: 'message', role: 'assistant', text: 'I could not write it.' });
      expect(err.text).toContain('denied: --approve never');
    } finally {
      store.close();
    }
  });

  it("--json tells when each background shell starts and ends; those still running end with the turn, and no process is left", async () => {
    const marker = `tick-${process.pid}-${Date.now()}`;
    /** Processes whose command line names the marker: the ticker's, inside its sandbox and out. */
    const tickers = () => fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e)).filter((e) => {
      try {
        return fs.readFileSync(`/proc/${e}/cmdline`, 'utf8').includes(marker) && !/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${e}/stat`, 'utf8'));
      } catch {
        return false;
      }
    });
    const store = new SqliteStore(databasePath());
    try {
      const { c, syntax, replies, out, err } = await scripted(store, { mode: 'auto' });
      const ticker = `while true; do echo ${marker}; sleep 0.2; done`;
      replies.push(
        formatCall(syntax, 'bash', { command: ticker, run_in_background: true }),
        formatCall(syntax, 'bash', { command: 'echo hi', run_in_background: true }),
        formatCall(syntax, 'bash_output', { bash_id: 'bg2', wait_ms: 10_000 }),
        'The ticker runs.',
      );
      // While the turn runs the ticker's processes are there.
      let runningThen = 0;
      const off = c.shells!.onChange((s) => {
        if (s.id === 'bg2' && s.state !== 'running') runningThen = tickers().length;
      });
      const code = await runTurn(c, 'Start a ticker.', { json: true, approve: 'never' }, { out, err });
      off();
      expect(err.text).not.toContain('unexpected error');
      expect(code).toBe(RUN_EXIT.answered);
      const list = events(out.text);
      expect(list.filter((e) => e.type.startsWith('shell.'))).toEqual([
        { type: 'shell.started', id: 'bg1', command: ticker, state: 'running', status: '[shell bg1 is running]' },
        { type: 'shell.started', id: 'bg2', command: 'echo hi', state: 'running', status: '[shell bg2 is running]' },
        { type: 'shell.ended', id: 'bg2', command: 'echo hi', state: 'exited', status: '[shell bg2 exited with code 0]' },
        { type: 'shell.ended', id: 'bg1', command: ticker, state: 'stopped', status: '[shell bg1 was stopped: Keel quit]' },
      ]);
      // Each comes when it happens: bg2's end before the result that waited for it, bg1's as the turn ends, before turn.completed.
      const at = (f: (e: (typeof list)[number]) => boolean) => list.findIndex(f);
      expect(at((e) => e.type === 'shell.ended' && e.id === 'bg2')).toBeLessThan(at((e) => e.type === 'item.completed' && (e.item as { name?: string }).name === 'bash_output'));
      expect(at((e) => e.type === 'shell.ended' && e.id === 'bg1')).toBe(list.length - 3);
      expect(list.at(-2)!.type).toBe('turn.completed');
      expect(runningThen).toBeGreaterThan(0);
      expect(tickers()).toEqual([]);
    } finally {
      store.close();
    }
  });

  it('runs a task call on a subagent of its own and tells its states and usage', async () => {
    const store = new SqliteStore(databasePath());
    try {
      const { c, syntax, replies, out, err } = await scripted(store, { mode: 'auto', contextSize: 16384 });
      replies.push(formatCall(syntax, 'task', { description: 'Find the config', prompt: 'Where is the config?' }), 'It is in config.json.', 'Found it.');
      const code = await runTurn(c, 'Find the config.', { json: true, approve: 'never' }, { out, err });
      expect(err.text).not.toContain('unexpected error');
      expect(code).toBe(RUN_EXIT.answered);
      const list = events(out.text);
      const states = list.filter((e) => e.type === 'subagent.state');
      const child = c.session.id + 1;
      expect(states.map((e) => e.type === 'subagent.state' && [e.session_id, e.description, e.state])).toEqual([
        [child, 'Find the config', 'waiting'], [child, 'Find the config', 'running'], [child, 'Find the config', 'answered'],
      ]);
      const usage = states.at(-1)!.type === 'subagent.state' ? (states.at(-1) as { usage?: { input_tokens: number; cached_input_tokens: number } }).usage : undefined;
      expect(usage?.input_tokens).toBeGreaterThan(1000);
      expect(usage?.cached_input_tokens).toBeGreaterThan(usage!.input_tokens / 2);
      expect(list.find((e) => e.type === 'item.completed' && (e.item as { type: string }).type === 'tool_result')).toMatchObject({ item: { name: 'task', text: '[#0001]\nIt is in config.json.' } });
      // The call shows as it starts, with the id its result gets, before its subagent runs.
      const at = (f: (e: (typeof list)[number]) => boolean) => list.findIndex(f);
      const started = at((e) => e.type === 'item.started');
      expect(list[started]).toEqual({ type: 'item.started', item: { type: 'tool_call', id: '#0001', name: 'task', arguments: { description: 'Find the config', prompt: 'Where is the config?' } } });
      expect(started).toBeLessThan(at((e) => e.type === 'subagent.state'));
      expect(started).toBeLessThan(at((e) => e.type === 'item.completed' && (e.item as { type: string }).type === 'tool_call'));
      expect(store.getSession(child)).toMatchObject({ parentId: c.session.id, title: 'Find the config' });
      expect(list.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'Found it.' });
    } finally {
      store.close();
    }
  });

  it('--max-tokens cuts each reply at N tokens', async () => {
    const r = await run(['--json', '--max-tokens', '2', 'Tell me a long story.']);
    expect(r.code).toBe(RUN_EXIT.answered);
    const request = events(r.out).find((e) => e.type === 'request.completed')!;
    expect(request.output_tokens).toBe(2);
  });

  it("a bash call is also Codex's command_execution: started in progress, then its output as the model got it and its exit code", async () => {
    const store = new SqliteStore(databasePath());
    try {
      const { c, syntax, replies, out, err } = await scripted(store, { mode: 'auto' });
      replies.push(
        formatCall(syntax, 'bash', { command: 'echo out; exit 3' }),
        formatCall(syntax, 'bash', { command: 'echo fine' }),
        'Done.',
      );
      const code = await runTurn(c, 'Run them.', { json: true, approve: 'never' }, { out, err });
      expect(err.text).not.toContain('unexpected error');
      expect(code).toBe(RUN_EXIT.answered);
      const list = events(out.text);
      const commands = list.filter((e) => (e.item as { type?: string } | undefined)?.type === 'command_execution').map((e) => [e.type, e.item]);
      expect(commands).toEqual([
        ['item.started', { type: 'command_execution', id: '#0001', command: 'echo out; exit 3', aggregated_output: '', exit_code: null, status: 'in_progress' }],
        ['item.completed', { type: 'command_execution', id: '#0001', command: 'echo out; exit 3', aggregated_output: 'out\n[exit code 3]', exit_code: 3, status: 'failed' }],
        ['item.started', { type: 'command_execution', id: '#0002', command: 'echo fine', aggregated_output: '', exit_code: null, status: 'in_progress' }],
        ['item.completed', { type: 'command_execution', id: '#0002', command: 'echo fine', aggregated_output: 'fine', exit_code: 0, status: 'completed' }],
      ]);
      // Beside Keel's own items, which are as they were: the typed item follows the call's tool_result.
      const items = list.filter((e) => e.type === 'item.completed').map((e) => (e.item as { type: string }).type);
      expect(items).toEqual(['message', 'tool_call', 'tool_result', 'command_execution', 'tool_call', 'tool_result', 'command_execution', 'message']);
    } finally {
      store.close();
    }
  });

  it("an edit, a write and a patch that deletes are Codex's file_change items, each file with its kind", async () => {
    const store = new SqliteStore(databasePath());
    try {
      fs.writeFileSync(path.join(root, 'gone.txt'), 'bye\n');
      const { c, syntax, replies, out, err } = await scripted(store, { mode: 'auto' });
      replies.push(
        formatCall(syntax, 'edit', { path: 'a.txt', old_string: 'hello', new_string: 'hi' }),
        formatCall(syntax, 'write', { path: 'sub/b.txt', content: 'new\n' }),
        formatCall(syntax, 'apply_patch', { patch: '--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n' }),
        'Changed.',
      );
      const code = await runTurn(c, 'Change them.', { json: true, approve: 'never' }, { out, err });
      expect(err.text).not.toContain('unexpected error');
      expect(code).toBe(RUN_EXIT.answered);
      expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('hi\n');
      const changes = events(out.text).filter((e) => (e.item as { type?: string } | undefined)?.type === 'file_change');
      expect(changes.map((e) => [e.type, e.item])).toEqual([
        ['item.completed', { type: 'file_change', id: '#0001', changes: [{ path: path.join(root, 'a.txt'), kind: 'update' }], status: 'completed' }],
        ['item.completed', { type: 'file_change', id: '#0002', changes: [{ path: path.join(root, 'sub/b.txt'), kind: 'add' }], status: 'completed' }],
        ['item.completed', { type: 'file_change', id: '#0003', changes: [{ path: path.join(root, 'gone.txt'), kind: 'delete' }], status: 'completed' }],
      ]);
    } finally {
      store.close();
    }
  });

  it("an MCP server's tool is in the init event's tools, and its call is Codex's mcp_tool_call", async () => {
    writeConfig(path.join(tmp, 'home', 'mcp.json'), { growing: entry(nodeServer(GROWING)) });
    const store = new SqliteStore(databasePath());
    try {
      const { c, syntax, replies, out, err } = await scripted(store, { mode: 'auto' });
      replies.push(formatCall(syntax, 'mcp__growing__look_around', {}), 'It runs.');
      const code = await runTurn(c, 'Look around.', { json: true, approve: 'always' }, { out, err });
      expect(err.text).not.toContain('unexpected error');
      expect(code).toBe(RUN_EXIT.answered);
      const list = events(out.text);
      expect(list[0].tools).toEqual(expect.arrayContaining(['bash', 'mcp__growing__look_around', 'mcp__growing__grow']));
      const calls = list.filter((e) => (e.item as { type?: string } | undefined)?.type === 'mcp_tool_call').map((e) => [e.type, e.item]);
      // The tool as its server names it (the session's list makes the dot an underscore).
      const common = { type: 'mcp_tool_call', id: '#0001', server: 'growing', tool: 'look.around', arguments: {} };
      expect(calls).toEqual([
        ['item.started', { ...common, result: null, error: null, status: 'in_progress' }],
        ['item.completed', { ...common, result: { content: [{ type: 'text', text: expect.stringMatching(/^cwd \//) }], structured_content: null }, error: null, status: 'completed' }],
      ]);
    } finally {
      store.close();
    }
  });

  it('--max-turns stops a turn that keeps calling tools, and it fails', async () => {
    const store = new SqliteStore(databasePath());
    try {
      const { c, syntax, replies, out, err } = await scripted(store, { mode: 'auto', maxSteps: 2 });
      replies.push(formatCall(syntax, 'read', { path: 'a.txt' }), formatCall(syntax, 'list', {}), 'Never reached.');
      const code = await runTurn(c, 'Look.', { json: true, approve: 'never' }, { out, err });
      expect(code).toBe(RUN_EXIT.failed);
      const list = events(out.text);
      expect(list.filter((e) => e.type === 'request.completed')).toHaveLength(2);
      expect(list.at(-2)).toEqual({ type: 'turn.failed', error: { message: 'the turn reached its request limit before the model answered' } });
      expect(list.at(-1)).toMatchObject({
        type: 'result', subtype: 'error', is_error: true, result: 'the turn reached its request limit before the model answered', num_turns: 2,
      });
    } finally {
      store.close();
    }
  });
});
