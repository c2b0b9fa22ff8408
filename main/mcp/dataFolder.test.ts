/**
 * Issue 36: the first MCP server people try, `@modelcontextprotocol/server-memory` as its README
 * starts it (`npx -y`), fetched from the npm registry during the test and run in the real sandbox:
 * it stores an entity and a later session reads it back (it failed with EROFS, writing beside its
 * code in Keel's read-only package cache). Each server writes its own data folder and nothing else
 * of Keel's data.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROWING, writeConfig } from '../../test/mcp/servers.js';
import { writeRules } from '../sandbox/policy.js';
import { serverDataFolder } from './dataFolder.js';
import { McpHub } from './hub.js';
import { sandboxedLaunch } from './sandboxed.js';

const PKG = '@modelcontextprotocol/server-memory';
let tmp: string;
let ws: string;
let home: string;

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-mcpdata-')));
  ws = path.join(tmp, 'ws');
  home = path.join(tmp, 'home');
  fs.mkdirSync(ws);
  fs.mkdirSync(home);
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('a server writes its own data folder, nothing else of Keel\'s data', () => {
  it('the write rules keep every other entry of the data folder, the package cache included', () => {
    const data = path.join(tmp, 'rules');
    for (const d of ['mcp-data/a', 'mcp-data/b', 'mcp-packages/npx/k1', 'mcp-packages/npx/k2', 'states']) fs.mkdirSync(path.join(data, d), { recursive: true });
    fs.writeFileSync(path.join(data, 'keel.db'), '');
    const own = [path.join(data, 'mcp-data/a'), path.join(data, 'mcp-packages/npx/k1')];
    const rules = writeRules({ root: ws, access: 'read-only', tmp: '/tmp/x', deniedReads: [], dataFolders: [data], home: tmp, writable: own });
    expect(rules.allow).toEqual(['/tmp/x', ...own]);
    expect(rules.deny.filter((d) => d.startsWith(data)).sort()).toEqual(['keel.db', 'mcp-data/b', 'mcp-packages/npx/k2', 'states'].map((d) => path.join(data, d)));
    // Without a writable folder the data folder is kept whole, as for every command.
    expect(writeRules({ root: ws, access: 'read-only', tmp: '/tmp/x', deniedReads: [], dataFolders: [data], home: tmp }).deny).toContain(data);
  });
});

describe(`${PKG} from its README, in the sandbox`, { timeout: 240_000 }, () => {
  const hub = () => new McpHub({ root: ws, dataFolder: home, wrapLaunch: sandboxedLaunch({ dataFolder: home }) });

  it('stores an entity in one session and reads it back in the next; the Servers view names its data folder', async () => {
    writeConfig(path.join(home, 'mcp.json'), { memory: { command: 'npx', args: ['-y', PKG] } });
    const first = hub();
    try {
      await first.start();
      expect(first.connection('memory')?.state, first.connection('memory')?.lastError).toBe('connected');
      const stored = await first.call('mcp__memory__create_entities', { entities: [{ name: 'Keel', entityType: 'project', observations: ['an offline coding agent'] }] }, { sessionId: 1 });
      expect(stored.kind, JSON.stringify(stored)).toBe('text');
      const view = first.view().servers.find((s) => s.name === 'memory')!;
      expect(view.dataFolder).toBe(serverDataFolder(home, { name: 'memory', scope: 'user', file: path.join(home, 'mcp.json') }));
      expect(fs.existsSync(view.dataFolder!)).toBe(true);
    } finally {
      await first.close();
    }
    const second = hub();
    try {
      await second.start();
      const read = await second.call('mcp__memory__read_graph', {}, { sessionId: 2 });
      expect(read.kind).toBe('text');
      expect(read.kind === 'text' ? read.body : '').toContain('an offline coding agent');
    } finally {
      await second.close();
    }
  });
});

describe('a write the sandbox refuses', { timeout: 60_000 }, () => {
  it("says where the server may write and how the person lets it write the workspace; with writeWorkspace it writes", async () => {
    const run = async (entry: Record<string, unknown>) => {
      writeConfig(path.join(home, 'mcp.json'), { growing: entry });
      const h = new McpHub({ root: ws, dataFolder: home, wrapLaunch: sandboxedLaunch({ dataFolder: home }) });
      try {
        await h.start();
        return await h.call('mcp__growing__write_note', { text: 'hi' }, { sessionId: 1 });
      } finally {
        await h.close();
      }
    };
    const refused = await run({ command: process.execPath, args: [GROWING] });
    expect(refused.kind).toBe('error');
    const own = serverDataFolder(home, { name: 'growing', scope: 'user', file: path.join(home, 'mcp.json') });
    expect(refused.kind === 'error' ? refused.message : '').toContain(`(The sandbox refused a write: the MCP server growing may write only ${own} and its temporary folder. To let it write the workspace, the person adds "sandbox": {"writeWorkspace": true} to its entry.)`);
    expect(fs.existsSync(path.join(ws, 'note.txt'))).toBe(false);
    const allowed = await run({ command: process.execPath, args: [GROWING], sandbox: { writeWorkspace: true } });
    expect(allowed.kind).toBe('text');
    expect(fs.readFileSync(path.join(ws, 'note.txt'), 'utf8')).toBe('hi');
  });
});
