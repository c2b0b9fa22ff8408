/**
 * `keel acp` end to end: the ACP SDK's own client drives Keel in another process over its real
 * standard input and output, on the generated model (replies scripted, every token still
 * evaluated by the real engine), with the real store and sandbox.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import {
  client, ndJsonStream, PROTOCOL_VERSION, type ClientConnection, type McpServer, type RequestPermissionRequest, type SessionNotification,
} from '@agentclientprotocol/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModel } from '../llm/model.js';
import { writeTestModel } from '../llm/testModel/makeTestModel.js';
import { callSyntax, formatCall, type CallSyntax } from '../llm/toolCalls.js';
import { sessionWrapper } from '../llm/wrapper.js';
import { EVERYTHING } from '../../test/mcp/servers.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface Agent {
  connection: ClientConnection;
  updates: SessionNotification[];
  permissions: RequestPermissionRequest[];
  child: ChildProcessByStdio<Writable, Readable, Readable>;
  stderr: () => string;
  /** The option the editor picks when asked. */
  choose: string;
  /** Writes the agent asked of the editor's buffers (fs/write_text_file). */
  writes: { path: string; content: string }[];
}

let dir: string;
let ws: string;
let model: string;
let script: string;
let syntax: CallSyntax;
const agents: Agent[] = [];

/**
 * `keel acp` in a process of its own, and the SDK's client on its stdio (every permission asked is
 * granted once). With `buffers`, the editor offers its files: a path it holds there reads as the
 * buffer's unsaved text, any other as on disk, and a write goes to the buffer and is saved, as Zed does.
 */
function startAgent(buffers?: Map<string, string>): Agent {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/acpChild.ts', path.join(dir, 'data'), model, script], { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const updates: SessionNotification[] = [];
  const permissions: RequestPermissionRequest[] = [];
  const app = client({ name: 'keel-test' })
    .onNotification('session/update', ({ params }) => void updates.push(params))
    .onRequest('session/request_permission', ({ params }) => {
      permissions.push(params);
      return { outcome: { outcome: 'selected', optionId: agent.choose } };
    })
    .onRequest('fs/read_text_file', ({ params }) => ({ content: buffers?.get(params.path) ?? fs.readFileSync(params.path, 'utf8') }))
    .onRequest('fs/write_text_file', ({ params }) => {
      agent.writes.push({ path: params.path, content: params.content });
      buffers?.set(params.path, params.content);
      fs.writeFileSync(params.path, params.content);
      return {};
    });
  // eslint-disable-next-line prefer-const -- the handler above reads it once connected
  let agent: Agent;
  const connection = app.connect(ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>));
  agent = { connection, updates, permissions, child, stderr: () => err, choose: 'allow', writes: [] };
  agents.push(agent);
  return agent;
}

/** Closes the agent's input, as an editor does when it quits, and waits for it to exit. */
async function quit(agent: Agent): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => agent.child.once('exit', (code) => resolve(code)));
  agent.child.stdin.end();
  return exited;
}

const kinds = (agent: Agent) => agent.updates.map((u) => u.update.sessionUpdate);
const said = (agent: Agent) => agent.updates.flatMap((u) => (u.update.sessionUpdate === 'agent_message_chunk' && u.update.content.type === 'text' ? [u.update.content.text] : [])).join('');
const scripted = (...replies: string[]) => fs.writeFileSync(script, JSON.stringify(replies));

beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-acp-')));
  ws = path.join(dir, 'ws');
  fs.mkdirSync(ws);
  fs.mkdirSync(path.join(dir, 'data'));
  fs.writeFileSync(path.join(ws, 'a.txt'), 'one\ntwo\n');
  fs.mkdirSync(path.join(ws, '.claude', 'commands'), { recursive: true });
  fs.writeFileSync(path.join(ws, '.claude', 'commands', 'review.md'), '---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $ARGUMENTS for bugs.\n');
  model = path.join(dir, 'tiny.gguf');
  writeTestModel(model);
  script = path.join(dir, 'script.json');
  const loaded = await loadModel({ modelPath: model, threads: 1, contextSize: 2048 });
  syntax = callSyntax(sessionWrapper(loaded.model, '2026-12-07'));
  await loaded.dispose();
}, 120_000);

afterAll(async () => {
  for (const agent of agents) agent.child.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('keel acp', () => {
  it('edits a file with permission, cancels mid-reply, and resumes the session in a new process with its cache', async () => {
    const first = startAgent();
    const { agent } = first.connection;
    const init = await agent.request('initialize', { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    expect(init.protocolVersion).toBe(PROTOCOL_VERSION);
    expect(init.agentCapabilities?.loadSession).toBe(true);
    // The editor's own MCP server over stdio joins the session's tools.
    const everything: McpServer = { name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'], env: [] };
    const created = await agent.request('session/new', { cwd: ws, mcpServers: [everything] });
    expect(created.modes?.currentModeId).toBe('ask');
    const sessionId = created.sessionId;
    for (let i = 0; i < 100 && !kinds(first).includes('available_commands_update'); i++) await new Promise((r) => setTimeout(r, 20));
    expect(first.updates.find((u) => u.update.sessionUpdate === 'available_commands_update')?.update).toEqual({
      sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'review', description: 'Review a file (project)', input: { hint: 'FILE' } }],
    });
    first.updates.length = 0;

    // A call that edits a file: asked in the editor, granted, its diff in the update.
    scripted(formatCall(syntax, 'edit', { path: 'a.txt', old_string: 'one', new_string: 'uno' }), 'Changed it.');
    const edited = await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Change one to uno in a.txt' }] });
    expect(edited.stopReason).toBe('end_turn');
    expect(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8')).toBe('uno\ntwo\n');
    expect(first.permissions).toHaveLength(1);
    expect(first.permissions[0].options.map((o) => o.kind)).toEqual(['allow_once', 'allow_always', 'reject_once']);
    const call = first.updates.find((u) => u.update.sessionUpdate === 'tool_call')!.update;
    expect(call).toMatchObject({ kind: 'edit', status: 'in_progress', locations: [{ path: path.join(ws, 'a.txt') }] });
    expect(first.permissions[0].toolCall.toolCallId).toBe((call as { toolCallId: string }).toolCallId);
    const ended = first.updates.find((u) => u.update.sessionUpdate === 'tool_call_update')!.update as { status: string; content: unknown[] };
    expect(ended.status).toBe('completed');
    expect(ended.content[0]).toEqual({ type: 'diff', path: path.join(ws, 'a.txt'), oldText: 'one\ntwo\n', newText: 'uno\ntwo\n' });
    expect(said(first)).toBe('Changed it.');
    // Keel's cache figures: one per request, in the response's _meta and beside each usage update.
    const requests = (edited._meta as { keel: { requests: { prompt_tokens: number; reused_tokens: number }[] } }).keel.requests;
    expect(requests).toHaveLength(2);
    expect(requests[1].reused_tokens).toBeGreaterThan(0);
    expect(kinds(first).filter((k) => k === 'usage_update')).toHaveLength(2);

    // An option Keel did not offer is a denial: nothing changes.
    first.choose = 'allow-forever';
    first.updates.length = 0;
    first.permissions.length = 0;
    scripted(formatCall(syntax, 'edit', { path: 'a.txt', old_string: 'two', new_string: 'dos' }), 'It was refused.');
    expect((await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Change two to dos' }] })).stopReason).toBe('end_turn');
    expect(first.permissions.map((p) => p.toolCall.kind)).toEqual(['edit']);
    expect(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8')).toBe('uno\ntwo\n');
    expect(first.updates.find((u) => u.update.sessionUpdate === 'tool_call_update')?.update).toMatchObject({ status: 'failed' });
    first.choose = 'allow';

    scripted(formatCall(syntax, 'mcp__everything__echo', { message: 'from the editor' }), 'It echoed.');
    first.updates.length = 0;
    first.permissions.length = 0;
    expect((await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Echo something' }] })).stopReason).toBe('end_turn');
    const echoed = first.updates.find((u) => u.update.sessionUpdate === 'tool_call_update')!.update as { status: string; rawOutput: { text: string } };
    expect(echoed.status).toBe('completed');
    expect(echoed.rawOutput.text).toContain('Echo: from the editor');
    expect(first.permissions.map((p) => p.toolCall.kind)).toEqual(['other']);

    // The mode is Keel's; a mode it has not is refused by name.
    await agent.request('session/set_mode', { sessionId, modeId: 'accept-edits' });
    await expect(agent.request('session/set_mode', { sessionId, modeId: 'yolo' })).rejects.toThrow(/Keel's modes are ask, accept-edits, plan, auto/);

    // Cancel mid-reply: the prompt ends `cancelled` and the turn is kept, cut where it stopped.
    first.updates.length = 0;
    scripted('word '.repeat(1500).trim());
    const long = agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Say many words' }] });
    for (let i = 0; i < 600 && !said(first); i++) await new Promise((r) => setTimeout(r, 50));
    await agent.notify('session/cancel', { sessionId });
    expect((await long).stopReason).toBe('cancelled');
    const cut = said(first);
    expect(cut.length).toBeGreaterThan(0);
    expect(cut.length).toBeLessThan('word '.repeat(1500).trim().length);

    // The workspace's slash commands are offered, and a prompt `/review a.txt` sends the command's prompt.
    scripted('Looks fine.');
    expect((await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/review a.txt' }] })).stopReason).toBe('end_turn');

    // Bad input: an unknown session and an image are refused by name; the agent goes on.
    await expect(agent.request('session/prompt', { sessionId: '999999', prompt: [{ type: 'text', text: 'hi' }] })).rejects.toThrow(/no session 999999/);
    await expect(agent.request('session/prompt', { sessionId, prompt: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }] })).rejects.toThrow(/not image content/);
    expect(await quit(first)).toBe(0);

    // A new process: the session loads with its history replayed, and its next request reads from the saved cache.
    const second = startAgent();
    await second.connection.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const loaded = await second.connection.agent.request('session/load', { sessionId, cwd: ws, mcpServers: [everything] });
    expect(loaded.modes?.currentModeId).toBe('accept-edits');
    const replayed = second.updates.map((u) => u.update);
    expect(replayed[0]).toEqual({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Change one to uno in a.txt' } });
    expect(replayed.some((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed')).toBe(true);
    expect(said(second)).toContain('Changed it.');
    expect(said(second)).toContain(cut);
    expect(replayed).toContainEqual({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Review a.txt for bugs.' } });
    expect(kinds(second)).toContain('available_commands_update');
    second.updates.length = 0;
    scripted('You are welcome.');
    const thanked = await second.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Thanks' }] });
    expect(thanked.stopReason).toBe('end_turn');
    expect(said(second)).toBe('You are welcome.');
    const [resumed] = (thanked._meta as { keel: { requests: { prompt_tokens: number; reused_tokens: number }[] } }).keel.requests;
    expect(resumed.reused_tokens).toBeGreaterThan(resumed.prompt_tokens * 0.9);
    // The editor's server, passed again on load, answers the session's calls in the new process.
    second.updates.length = 0;
    scripted(formatCall(syntax, 'mcp__everything__echo', { message: 'again' }), 'Echoed again.');
    expect((await second.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Echo again' }] })).stopReason).toBe('end_turn');
    const again = second.updates.find((u) => u.update.sessionUpdate === 'tool_call_update')!.update as { rawOutput: { text: string } };
    expect(again.rawOutput.text).toContain('Echo: again');
    expect(await quit(second)).toBe(0);
  }, 240_000);

  it("reads and writes the editor's buffers where the editor offers them, and stores a reply cut off when the editor goes away", async () => {
    const notes = path.join(ws, 'notes.txt');
    fs.writeFileSync(notes, 'alpha\n');
    // The person has typed a line in the editor and not saved it.
    const buffers = new Map([[notes, 'alpha\nbeta unsaved\n']]);
    const editor = startAgent(buffers);
    const { agent } = editor.connection;
    await agent.request('initialize', { protocolVersion: PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } });
    const { sessionId } = await agent.request('session/new', { cwd: ws, mcpServers: [] });
    await agent.request('session/set_mode', { sessionId, modeId: 'accept-edits' });
    const results = () => editor.updates.flatMap((u) => (u.update.sessionUpdate === 'tool_call_update' ? [(u.update.rawOutput as { text: string }).text] : []));

    scripted(
      formatCall(syntax, 'read', { path: 'notes.txt' }),
      formatCall(syntax, 'read', { path: 'notes.txt' }),
      formatCall(syntax, 'edit', { path: 'notes.txt', old_string: 'beta unsaved', new_string: 'beta' }),
      'Done.',
    );
    expect((await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Tidy notes.txt' }] })).stopReason).toBe('end_turn');
    const [read, reread, edit] = results();
    // The model read the buffer, unsaved line included; a second read of the same text is hygiene's
    // stub (by content hash, as on disk); the edit found the unsaved line, and went to the editor.
    expect(read).toContain('beta unsaved');
    expect(reread).not.toContain('alpha');
    expect(reread).toMatch(/unchanged/i);
    expect(edit).not.toMatch(/^Error/);
    expect(editor.writes).toEqual([{ path: notes, content: 'alpha\nbeta\n' }]);
    expect(buffers.get(notes)).toBe('alpha\nbeta\n');

    // The editor goes away mid-reply: the agent stops the turn, stores it, and exits.
    editor.updates.length = 0;
    scripted('word '.repeat(1500).trim());
    const long = agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Say many words' }] }).catch(() => undefined);
    // Gone once two words have reached it (on a busy machine the first chunk can be a word and a half).
    for (let i = 0; i < 600 && !/word word/.test(said(editor)); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await quit(editor)).toBe(0);
    await long;

    const after = startAgent();
    await after.connection.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    await after.connection.agent.request('session/load', { sessionId, cwd: ws, mcpServers: [] });
    const replayed = said(after);
    expect(replayed).toContain('Done.');
    expect(replayed).toMatch(/Done\.\s*word word/);
    expect(replayed.length).toBeLessThan('Done.'.length + 'word '.repeat(1500).length);
    expect(await quit(after)).toBe(0);
  }, 240_000);
});
