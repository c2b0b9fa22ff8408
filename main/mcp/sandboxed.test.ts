/**
 * stdio MCP servers in the command sandbox, on the real bubblewrap (CI installs it: .ci/run) and
 * the real server-filesystem from npm, started the way the app and `keel` start them: a hub with
 * sandboxedLaunch. The server itself is told it may use the workspace and the home folder, so
 * whatever it cannot do there is the sandbox's refusal, not the server's.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PROMPTS_DIR } from '../core/prompts/buildSystemPrompt.js';
import { Session } from '../core/session/session.js';
import type { RawOutput } from '../core/tools/types.js';
import { ToolRegistry } from '../core/tools/registry.js';
import { SqliteStore } from '../db/store.js';
import { sandboxStatus } from '../sandbox/runner.js';
import type { ServerConfig, ServerSandbox } from './config.js';
import { McpHub } from './hub.js';
import { sandboxedLaunch } from './sandboxed.js';
import { entry, FILESYSTEM, nodeServer, writeConfig } from '../../test/mcp/servers.js';
import { usePrivateTmpdir } from '../../test/privateTmpdir.js';

const SECRET = 'KEEL-MCP-SANDBOX-SECRET-7f3e';
let base: string;
let root: string;
let home: string;
let data: string;
const hubs: McpHub[] = [];

const put = (abs: string, content: string) => {
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, content);
};
const text = (r: RawOutput) => (r.kind === 'text' ? r.body : r.kind === 'error' ? r.message : JSON.stringify(r));
const keelTemps = () => fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('keel-cmd-')).length;

usePrivateTmpdir();

beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-mcpsandbox-')));
  root = path.join(base, 'ws');
  home = path.join(base, 'home');
  data = path.join(base, 'data');
  put(path.join(root, 'notes.txt'), 'workspace notes\n');
  execFileSync('git', ['init', '-q'], { cwd: root });
  put(path.join(home, '.ssh', 'id_rsa'), `${SECRET} key\n`);
  put(path.join(home, 'readable.txt'), 'home file\n');
  fs.mkdirSync(data);
});
afterEach(async () => {
  for (const h of hubs.splice(0)) await h.close();
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

/** A hub whose only server is server-filesystem over the workspace and home, with `sandbox` in its entry. */
async function filesystem(scope: 'user' | 'workspace', sandbox?: object): Promise<McpHub> {
  const server = { ...entry(nodeServer(FILESYSTEM, [root, home])), ...(sandbox ? { sandbox } : {}) };
  const file = scope === 'user' ? path.join(data, 'mcp.json') : path.join(root, '.mcp.json');
  fs.rmSync(path.join(data, 'mcp.json'), { force: true });
  fs.rmSync(path.join(root, '.mcp.json'), { force: true });
  writeConfig(file, { fs: server });
  const h = new McpHub({ root, dataFolder: data, wrapLaunch: sandboxedLaunch({ dataFolder: data, home }) });
  hubs.push(h);
  if (scope === 'workspace') h.approvals.approve(file, h.configView().files.find((f) => f.scope === 'workspace')!.hash);
  await h.start();
  expect(h.connection('fs')?.state, h.connection('fs')?.lastError).toBe('connected');
  return h;
}

describe('a stdio MCP server in the command sandbox', { timeout: 60_000 }, () => {
  it('runs here, in bubblewrap', async () => {
    expect(await sandboxStatus()).toEqual({ kind: 'sandboxed', how: 'bubblewrap' });
  });

  it('reads the workspace and the home folder, but not ~/.ssh, and writes nothing by default', async () => {
    const h = await filesystem('workspace');
    expect(text(await h.call('mcp__fs__read_text_file', { path: path.join(root, 'notes.txt') }, { sessionId: 0 }))).toBe('workspace notes\n');
    expect(text(await h.call('mcp__fs__read_text_file', { path: path.join(home, 'readable.txt') }, { sessionId: 0 }))).toBe('home file\n');

    const key = await h.call('mcp__fs__read_text_file', { path: path.join(home, '.ssh', 'id_rsa') }, { sessionId: 0 });
    expect(key.kind).toBe('error');
    expect(text(key)).not.toContain(SECRET);

    for (const target of [path.join(root, 'made.txt'), path.join(home, 'made.txt')]) {
      const write = await h.call('mcp__fs__write_file', { path: target, content: 'x' }, { sessionId: 0 });
      expect(write.kind, target).toBe('error');
      expect(text(write)).toMatch(/EROFS|read-only/i);
      expect(fs.existsSync(target)).toBe(false);
    }
  });

  it('writes the workspace when its entry says writeWorkspace, never .git, the home folder or the real ~/.ssh', async () => {
    const h = await filesystem('user', { writeWorkspace: true });
    const made = path.join(root, 'made.txt');
    expect((await h.call('mcp__fs__write_file', { path: made, content: 'written' }, { sessionId: 0 })).kind).toBe('text');
    expect(fs.readFileSync(made, 'utf8')).toBe('written');
    fs.rmSync(made);
    for (const target of [path.join(root, '.git', 'HEAD'), path.join(home, 'made.txt')]) {
      const before = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : undefined;
      expect((await h.call('mcp__fs__write_file', { path: target, content: 'x' }, { sessionId: 0 })).kind, target).toBe('error');
      expect(fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : undefined).toBe(before);
    }
    // ~/.ssh is hidden behind an empty folder of the sandbox's own: a write there lands in it and
    // goes with the sandbox; the real folder is untouched.
    await h.call('mcp__fs__write_file', { path: path.join(home, '.ssh', 'authorized_keys'), content: 'x' }, { sessionId: 0 });
    expect(fs.readdirSync(path.join(home, '.ssh'))).toEqual(['id_rsa']);
    expect(h.view().servers[0].launch).toMatch(/ \[sandbox: writes the workspace\]$/);
  });

  it('reaches no network: not the loopback, whether or not it may write or names domains', async () => {
    const server = http.createServer((_req, res) => res.end('reached'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const launch = sandboxedLaunch({ dataFolder: data, home });
    const fetch = async (sandbox?: ServerSandbox) => {
      const config: ServerConfig = { name: 'net', scope: 'workspace', file: path.join(root, '.mcp.json'), transport: { type: 'stdio', command: 'curl', args: [], env: {}, sandbox } };
      const l = await launch('curl', ['-sS', '--max-time', '5', url], { ...config, cwd: root, root });
      try {
        return execFileSync(l.command, l.args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      } catch (err) {
        return `failed: ${(err as { stdout?: string }).stdout ?? ''} ${(err as { stderr?: string }).stderr ?? ''}`;
      } finally {
        l.release?.();
      }
    };
    try {
      expect(await fetch()).not.toContain('reached');
      expect(await fetch({ writeWorkspace: true })).not.toContain('reached');
      // A listed domain goes through the library's proxy, which refuses loopback whatever is
      // listed, and this machine reaches no other host: that path is the library's, untested here.
      expect(await fetch({ allowedDomains: ['example.com'] })).not.toContain('reached');
    } finally {
      server.close();
    }
  });

  it('frees its temp folder once the server has stopped, and starts again in a fresh one', async () => {
    const temps = keelTemps();
    const h = await filesystem('user');
    expect(keelTemps()).toBe(temps + 1);
    await h.restart('fs');
    expect(h.connection('fs')!.state).toBe('connected');
    await until(() => keelTemps() === temps + 1);
    await h.close();
    await until(() => keelTemps() === temps);
  });

  it('serves a session end to end: its tools in the fixed list, a read answered, a write refused', async () => {
    const h = await filesystem('workspace');
    const store = new SqliteStore(path.join(data, 'keel.db'));
    try {
      const deps = { store, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, now: () => new Date('2026-12-02T10:00:00'), external: h };
      const s = Session.create(deps, { root, kind: 'agent', mode: 'auto' });
      expect(s.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['mcp__fs__read_text_file', 'mcp__fs__write_file']));
      s.userMessage('read the notes, then write one');
      expect((await s.calls.run('mcp__fs__read_text_file', { path: path.join(root, 'notes.txt') })).text).toBe('[#0001]\nworkspace notes\n');
      const write = await s.calls.run('mcp__fs__write_file', { path: path.join(root, 'made.txt'), content: 'x' });
      expect(write.text).toMatch(/^\[#0002\]\nError: .*(EROFS|read-only)/is);
      expect(fs.existsSync(path.join(root, 'made.txt'))).toBe(false);
    } finally {
      store.close();
    }
  });
});

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}
