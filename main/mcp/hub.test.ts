import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../db/store.js';
import type { ApprovalRequest } from '../core/permissions/approval.js';
import { DEFAULT_PROMPTS_DIR } from '../core/prompts/buildSystemPrompt.js';
import { Session, type SessionDeps } from '../core/session/session.js';
import type { Mode } from '../core/state/types.js';
import { builtinSpecs } from '../core/state/toolList.js';
import { ToolRegistry } from '../core/tools/registry.js';
import { McpHub, type HubOptions } from './hub.js';
import { entry, EVERYTHING, GROWING, nodeServer, writeConfig } from '../../test/mcp/servers.js';

let tmp: string;
let root: string;
let data: string;
let store: SqliteStore;
const hubs: McpHub[] = [];

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-hub-')));
  root = path.join(tmp, 'ws');
  data = path.join(tmp, 'data');
  fs.mkdirSync(root);
  fs.mkdirSync(data);
  store = new SqliteStore(path.join(data, 'keel.db'));
});
afterEach(async () => {
  for (const h of hubs.splice(0)) await h.close();
  store.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const hub = (o: Partial<HubOptions> = {}) => {
  const h = new McpHub({ root, dataFolder: data, ...o });
  hubs.push(h);
  return h;
};
const userServers = (servers: Record<string, unknown>) => writeConfig(path.join(data, 'mcp.json'), servers);
const workspaceServers = (servers: Record<string, unknown>) => writeConfig(path.join(root, '.mcp.json'), servers);
/** A stdio "server" that only leaves a mark that it ran. */
const marker = (name: string) => ({ command: process.execPath, args: ['-e', `require('fs').writeFileSync(${JSON.stringify(path.join(tmp, name))}, 'ran')`] });

function deps(h: McpHub | undefined, asked: ApprovalRequest[] = [], answer: 'allow' | 'deny' = 'deny'): SessionDeps {
  return {
    store, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, now: () => new Date('2026-11-30T10:00:00'), external: h,
    permissions: { approve: async (r) => { asked.push(r); return answer; } },
  };
}
const newSession = (d: SessionDeps, mode: Mode = 'ask') => Session.create(d, { root, kind: 'agent', mode });

describe('which servers run', { timeout: 60_000 }, () => {
  it("never starts a workspace file's servers before the person approved the file as it is now", async () => {
    workspaceServers({ mark: marker('ran-1') });
    const h = hub({ connectTimeoutMs: 3000 });
    await h.start();
    expect(fs.existsSync(path.join(tmp, 'ran-1'))).toBe(false);
    const view = h.view();
    expect(view.files.find((f) => f.scope === 'workspace')).toMatchObject({ needsApproval: true, servers: ['mark'] });
    expect(view.servers).toMatchObject([{ name: 'mark', state: 'not approved' }]);
    await expect(h.approveWorkspaceFile('0'.repeat(64))).rejects.toThrow(/changed since it was shown/);
    expect(fs.existsSync(path.join(tmp, 'ran-1'))).toBe(false);

    await h.approveWorkspaceFile(view.files.find((f) => f.scope === 'workspace')!.hash);
    expect(fs.existsSync(path.join(tmp, 'ran-1'))).toBe(true);
    // Editing the file asks again: nothing of the new content runs, in this app or the next.
    workspaceServers({ mark: marker('ran-2') });
    await h.start();
    await hub({ connectTimeoutMs: 3000 }).start();
    expect(fs.existsSync(path.join(tmp, 'ran-2'))).toBe(false);
    expect(h.view().servers).toMatchObject([{ name: 'mark', state: 'not approved' }]);
  });

  it("runs the person's own servers without asking, and their entry wins over a workspace server of the same name", async () => {
    userServers({ growing: entry(nodeServer(GROWING)) });
    workspaceServers({ growing: marker('ran') });
    const h = hub();
    await h.start();
    expect(h.view().servers).toMatchObject([{ name: 'growing', scope: 'user', state: 'connected' }]);
    expect(h.view().files.find((f) => f.scope === 'workspace')!.problems[0]).toMatch(/"growing" .* is left out: .*mcp\.json already names a server so/);
    await h.approveWorkspaceFile(h.view().files.find((f) => f.scope === 'workspace')!.hash);
    expect(fs.existsSync(path.join(tmp, 'ran'))).toBe(false);
  });
});

describe('a session on MCP servers', { timeout: 120_000 }, () => {
  it('takes their tools into its fixed list (sorted, after the built-ins) and their instructions into its prompt', async () => {
    userServers({ everything: entry(nodeServer(EVERYTHING, ['stdio'])), growing: entry(nodeServer(GROWING, [], { INSTRUCTIONS: 'Call grow first.' })) });
    const h = hub();
    await h.start();
    const s = newSession(deps(h));
    const names = s.tools.map((t) => t.name);
    // The built-ins a session without skills offers (`skill` only where a skill exists).
    const builtins = builtinSpecs(DEFAULT_PROMPTS_DIR, new ToolRegistry()).map((t) => t.name);
    expect(names.slice(0, builtins.length)).toEqual(builtins);
    const mcp = names.slice(builtins.length);
    expect(mcp).toEqual([...mcp].sort());
    expect(mcp).toEqual(expect.arrayContaining(['mcp__everything__echo', 'mcp__growing__grow', 'mcp__growing__look_around']));
    const echo = s.tools.find((t) => t.name === 'mcp__everything__echo')!;
    const listed = h.connection('everything')!.tools.find((t) => t.tool === 'echo')!;
    expect(echo).toEqual({ name: 'mcp__everything__echo', description: listed.description, parameters: listed.inputSchema });
    expect(s.systemPrompt).toContain('\n\n# Instructions from the MCP server everything\n\n# Everything Server – Server Instructions');
    expect(s.systemPrompt).toContain('\n\n# Instructions from the MCP server growing\n\nCall grow first.\n');
    expect(s.systemPrompt.indexOf('server everything')).toBeLessThan(s.systemPrompt.indexOf('server growing'));
  });

  it('keeps the tool list and system prompt byte for byte through a server killed, its calls, and its restart', async () => {
    userServers({ everything: entry(nodeServer(EVERYTHING, ['stdio'])) });
    const h = hub();
    await h.start();
    const s = newSession(deps(h), 'auto');
    const tools = JSON.stringify(s.tools);
    const prompt = s.systemPromptForRequest();
    expect((await s.calls.run('mcp__everything__echo', { message: 'one' })).text).toBe('[#0001]\nEcho: one');
    s.endReply();

    process.kill(h.connection('everything')!.pid!, 'SIGKILL');
    await until(() => h.connection('everything')!.state === 'disconnected');
    s.userMessage('go on');
    expect((await s.calls.run('mcp__everything__echo', { message: 'two' })).text).toBe(
      "[#0002]\nError: mcp__everything__echo is unavailable: the MCP server everything is not connected (disconnected). Its tools stay in this session's list and answer again once it is back.",
    );
    expect(JSON.stringify(s.tools)).toBe(tools);
    expect(s.systemPromptForRequest()).toBe(prompt);
    expect(s.systemPromptUnchanged()).toBe(true);

    // A new session while the server is down: no tools of it, and the running one is unchanged.
    expect(newSession(deps(h)).tools.some((t) => t.name.startsWith('mcp__everything__'))).toBe(false);
    await h.restart('everything');
    s.endReply();
    s.userMessage('again');
    expect((await s.calls.run('mcp__everything__echo', { message: 'three' })).text).toBe('[#0003]\nEcho: three');
    expect(JSON.stringify(Session.open(deps(h), s.id).tools)).toBe(tools);
    expect(Session.open(deps(h), s.id).systemPromptForRequest()).toBe(prompt);
    // The server's instructions were in the prompt from the start: no note repeats them.
    expect(s.turns().flatMap((t) => t.notes).filter((n) => n.kind === 'server')).toEqual([]);
  });

  it('leaves tools added mid-session for the next session, and says which are waiting', async () => {
    userServers({ growing: entry(nodeServer(GROWING)) });
    const changed: string[] = [];
    const h = hub({ onEvent: (e) => { if (e.type === 'changed') changed.push(e.server); } });
    await h.start();
    const s = newSession(deps(h), 'auto');
    const tools = JSON.stringify(s.tools);
    await s.calls.run('mcp__growing__grow', {});
    await until(() => h.specs().some((t) => t.name === 'mcp__growing__grown'));
    expect(changed).toContain('growing');
    expect(JSON.stringify(s.tools)).toBe(tools);
    expect(h.waiting(s.tools)).toEqual([{ name: 'mcp__growing__grown', change: 'new' }]);
    expect((await s.calls.run('mcp__growing__grown', {})).text).toMatch(/^\[#0002\]\nError: there is no tool "mcp__growing__grown"/);
    const next = newSession(deps(h), 'auto');
    expect(next.tools.map((t) => t.name)).toContain('mcp__growing__grown');
    expect(h.waiting(next.tools)).toEqual([]);
  });

  it('never tells a session the instructions of a server that connected after it began (it has none of its tools); the next session gets them', async () => {
    userServers({ growing: entry(nodeServer(GROWING, [], { INSTRUCTIONS: 'Always grow before looking around.' })) });
    const h = hub();
    const s = newSession(deps(h), 'auto');
    const prompt = s.systemPromptForRequest();
    expect(prompt).not.toContain('Always grow');
    await h.start();
    expect(h.instructions().map((i) => i.server)).toEqual(['growing']);
    const first = s.userMessage('hello');
    expect(first.notes.filter((n) => n.kind === 'server')).toEqual([]);
    expect(first.sent).not.toContain('Always grow');
    expect(s.systemPromptForRequest()).toBe(prompt);
    // A compaction rebuilds the prompt: still not there, the session still lacks the tools.
    s.endReply();
    s.history.compact('Summary.');
    expect(s.systemPrompt).not.toContain('Always grow');
    expect(s.userMessage('after').notes.filter((n) => n.kind === 'server')).toEqual([]);
    const next = newSession(deps(h), 'auto');
    expect(next.systemPrompt).toContain('# Instructions from the MCP server growing\n\nAlways grow before looking around.');
  });

  it('asks before an MCP call in ask mode showing server, tool and arguments; a deny runs nothing', async () => {
    userServers({ growing: entry(nodeServer(GROWING)) });
    const h = hub();
    await h.start();
    const asked: ApprovalRequest[] = [];
    const s = newSession(deps(h, asked, 'deny'), 'ask');
    const r = await s.calls.run('mcp__growing__write_note', { text: 'hi' });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ tool: 'mcp__growing__write_note', server: 'growing', serverTool: 'write_note', args: { text: 'hi' } });
    expect(asked[0].preview).toBe('MCP server: growing\nTool: write_note\nArguments: {\n  "text": "hi"\n}');
    expect(asked[0].reason).toBe('ask mode asks before MCP tools: growing does not mark it read-only');
    expect(r.text).toBe('[#0001]\nError: the person denied the MCP call mcp__growing__write_note. Nothing was changed.');
    expect(fs.existsSync(path.join(root, 'note.txt'))).toBe(false);

    // A read-only tool asks too, until the person trusts the server; then it passes without asking.
    await s.calls.run('mcp__growing__look_around', {});
    expect(asked).toHaveLength(2);
    h.setTrusted('growing', true);
    expect((await s.calls.run('mcp__growing__look_around', {})).text).toBe(`[#0003]\ncwd ${root}`);
    expect(asked).toHaveLength(2);

    // Plan mode: only read-only tools, and a writer is denied without asking.
    s.setMode('plan');
    expect((await s.calls.run('mcp__growing__write_note', { text: 'x' })).text).toMatch(/^\[#0004\]\nError: denied: the MCP call mcp__growing__write_note: plan mode runs only MCP tools that growing marks read-only/);
    expect(asked).toHaveLength(2);
    expect(fs.existsSync(path.join(root, 'note.txt'))).toBe(false);
  });

  it('stores an image result in full beside its described text, and recall shows the text', async () => {
    userServers({ everything: entry(nodeServer(EVERYTHING, ['stdio'])) });
    const h = hub();
    await h.start();
    const s = newSession(deps(h), 'auto');
    const r = await s.calls.run('mcp__everything__get-tiny-image', {});
    const [png] = store.listAttachments(s.id, r.number);
    expect(png.mimeType).toBe('image/png');
    expect(r.text).toBe(`[#0001]\nHere's the image you requested:\n[image image/png, ${png.data.length} bytes, stored with this result]\nThe image above is the MCP logo.`);
    expect((await s.calls.run('recall', { id: '#1' })).text).toMatch(/^\[#0002 recall #0001 lines 1-3 of 3\]\nHere's the image/);
  });

  it('answers a listed tool without a hub (another front end) with the unavailable text, asking no one', async () => {
    userServers({ everything: entry(nodeServer(EVERYTHING, ['stdio'])) });
    const h = hub();
    await h.start();
    const s = newSession(deps(h), 'ask');
    const asked: ApprovalRequest[] = [];
    const reopened = Session.open(deps(undefined, asked), s.id);
    expect((await reopened.calls.run('mcp__everything__echo', { message: 'x' })).text).toBe(
      "[#0001]\nError: mcp__everything__echo is unavailable: the MCP server everything is not connected (not configured here). Its tools stay in this session's list and answer again once it is back.",
    );
    expect(asked).toEqual([]);
    expect((await reopened.calls.run('mcp__everything__echo', 'x')).text).toBe('[#0002]\nError: the arguments of mcp__everything__echo must be a JSON object.');
  });
});

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}
