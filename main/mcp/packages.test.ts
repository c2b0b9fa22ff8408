/**
 * `npx -y PKG` as every server README writes it, with a real server that is not in package.json:
 * fetched from the npm registry during the test into a temporary data folder's package cache,
 * then run in the real sandbox (bubblewrap, no network) by `keel mcp` and by a session.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../../test/cliRun.js';
import { writeConfig } from '../../test/mcp/servers.js';
import { DEFAULT_PROMPTS_DIR } from '../core/prompts/buildSystemPrompt.js';
import { Session } from '../core/session/session.js';
import { ToolRegistry } from '../core/tools/registry.js';
import { SqliteStore } from '../db/store.js';
import { McpHub, type HubEvent } from './hub.js';
import { packageLaunch } from './launchers.js';
import { packageCache } from './packages.js';
import { sandboxedLaunch } from './sandboxed.js';

const PKG = '@modelcontextprotocol/server-sequential-thinking';
let tmp: string;
let ws: string;
let home: string;
let savedHome: string | undefined;

beforeAll(() => {
  expect(fs.readFileSync(path.resolve('package.json'), 'utf8')).not.toContain(PKG);
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-mcppkg-')));
  savedHome = process.env.KEEL_HOME;
  home = path.join(tmp, 'home');
  process.env.KEEL_HOME = home;
  ws = path.join(tmp, 'ws');
  fs.mkdirSync(ws);
});
afterAll(() => {
  if (savedHome === undefined) delete process.env.KEEL_HOME;
  else process.env.KEEL_HOME = savedHome;
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('reading package lines', () => {
  it('finds the package, the program and the arguments of npx, uvx and bunx lines', () => {
    const stdio = (command: string, args: string[]) => ({ type: 'stdio' as const, command, args, env: {} });
    expect(packageLaunch(stdio('npx', ['-y', PKG]))).toEqual({ manager: 'npx', packages: [PKG], installArgs: [], args: [] });
    expect(packageLaunch(stdio('/usr/bin/npx', ['--yes', '-p', 'a@1', '--package=b', 'prog', '--flag', 'x']))).toEqual({ manager: 'npx', packages: ['a@1', 'b'], program: 'prog', installArgs: [], args: ['--flag', 'x'] });
    expect(packageLaunch(stdio('uvx', ['--from', 'git-tools==1.0', 'mcp-git', '--repo', '.']))).toEqual({ manager: 'uvx', packages: ['git-tools==1.0'], program: 'mcp-git', installArgs: [], args: ['--repo', '.'] });
    expect(packageLaunch(stdio('uvx', ['mcp-server-time==0.6', '--local-timezone=UTC']))).toEqual({ manager: 'uvx', packages: ['mcp-server-time==0.6'], program: 'mcp-server-time', installArgs: [], args: ['--local-timezone=UTC'] });
    expect(packageLaunch(stdio('bunx', ['pkg', 'a']))).toEqual({ manager: 'bunx', packages: ['pkg'], installArgs: [], args: ['a'] });
    // Not a package line: run as written, in the sandbox. An option Keel does not know: refused (packageAttacks.test.ts).
    expect(packageLaunch(stdio('node', ['server.mjs']))).toBeUndefined();
    expect(packageLaunch(stdio('npx', ['--registry', 'x', 'pkg']))).toHaveProperty('refused');
  });
});

describe('a server from npx -y, fetched once', { timeout: 240_000 }, () => {
  it('keel mcp approve shows what it fetches; tools fetches it with progress, then lists its tools from the sandbox', async () => {
    writeConfig(path.join(ws, '.mcp.json'), { think: { command: 'npx', args: ['-y', PKG] } });
    const listed = await cli('mcp', 'list', '--workspace', ws);
    expect(listed.out).toContain(`server think (workspace): npx -y ${PKG} [not approved]\n  fetches ${PKG}, with npm, once, before its first start; outside the sandbox, with network, Keel runs: npm install --prefix <keel package cache> --ignore-scripts --no-audit --no-fund --loglevel=error -- ${PKG} (no install script runs, no source is built; it gets only PATH, HOME, locale, proxy and registry settings of your environment)\n`);
    // Not approved: nothing is fetched.
    expect((await cli('mcp', 'tools', '--workspace', ws)).code).toBe(1);
    expect(fs.existsSync(packageCache(home))).toBe(false);

    expect((await cli('mcp', 'approve', '--workspace', ws)).code).toBe(0);
    const first = await cli('mcp', 'tools', '--workspace', ws);
    expect(first.err).toMatch(new RegExp(`^Fetching ${PKG} for MCP server think with npm \\(once; kept in ${packageCache(home)}/npx/[0-9a-f]{16}\\)…\\nFetched ${PKG} for MCP server think in [\\d.]+ s\\.\\n$`));
    expect(first.out).toMatch(/^server think: 1 tool\n {2}mcp__think__sequentialthinking (\(read-only\) )? \S/);
    expect(first.code).toBe(0);

    const again = await cli('mcp', 'tools', '--workspace', ws);
    expect(again).toMatchObject({ code: 0, err: '' });
    expect(again.out).toBe(first.out);
  });

  it("a session gets its tools, run from the cache in the sandbox, nothing fetched again", async () => {
    const events: HubEvent[] = [];
    const h = new McpHub({ root: fs.realpathSync(ws), dataFolder: home, wrapLaunch: sandboxedLaunch({ dataFolder: home }), onEvent: (e) => events.push(e) });
    const store = new SqliteStore(path.join(tmp, 'keel.db'));
    try {
      await h.start();
      expect(h.connection('think')?.state, h.connection('think')?.lastError).toBe('connected');
      expect(events.filter((e) => e.type === 'preparing')).toEqual([]);
      const s = Session.create({ store, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, now: () => new Date('2026-12-03T10:00:00'), external: h, permissions: { approve: async () => 'allow' } }, { root: ws, kind: 'agent', mode: 'auto' });
      expect(s.tools.map((t) => t.name)).toContain('mcp__think__sequentialthinking');
      const answer = await h.call('mcp__think__sequentialthinking', { thought: 'One step.', nextThoughtNeeded: false, thoughtNumber: 1, totalThoughts: 1 }, { sessionId: 0 });
      expect(answer.kind).toBe('text');
    } finally {
      await h.close();
      store.close();
    }
  });

  it('a package the registry does not have: one sentence why and what to do; a missing uv: one sentence too', async () => {
    writeConfig(path.join(home, 'mcp.json'), {
      nope: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-keel-does-not-exist-4b2'] },
      py: { command: 'uvx', args: ['mcp-server-time'] },
    });
    // This machine's PATH without uv: npm is where it is (beside node, or not, as with a Node from the npm registry).
    const withoutUv = (process.env.PATH ?? '').split(path.delimiter).filter((dir) => !['uv', 'uvx'].some((tool) => fs.existsSync(path.join(dir, tool))));
    const h = new McpHub({ root: fs.realpathSync(ws), dataFolder: home, configFile: path.join(home, 'mcp.json'), env: { ...process.env, PATH: withoutUv.join(path.delimiter) } });
    try {
      await h.start();
      const byName = Object.fromEntries(h.view().servers.map((s) => [s.name, s]));
      expect(byName.nope).toMatchObject({ state: 'failed', lastError: 'The package @modelcontextprotocol/server-keel-does-not-exist-4b2 for MCP server nope could not be fetched: the npm registry has no such package; check its name in the entry.' });
      expect(byName.py).toMatchObject({ state: 'failed', lastError: 'MCP server py is started with uvx, but uv is not installed here: install uv (https://docs.astral.sh/uv/) and restart the server, or give its entry a command that is installed.' });
    } finally {
      await h.close();
    }
  });
});
