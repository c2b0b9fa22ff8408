/**
 * Issue 23 class 5, as an attacker who controls the repository: a workspace `.mcp.json` must not
 * carry Keel's environment to a server, echo a file it links to, hang or eat memory, or run code the
 * person did not approve. Each attack goes through the hub (what `keel mcp` and the app use).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { entry, GROWING, nodeServer, writeConfig } from '../../test/mcp/servers.js';
import { MAX_CONFIG_BYTES } from './configFile.js';
import { readConfigFile } from './config.js';
import { McpHub } from './hub.js';

const SECRET = 'KEEL-ATTACK-SECRET-5c1d';
let base: string;
let root: string;
let data: string;
const hubs: McpHub[] = [];

beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-mcpattack-')));
  root = path.join(base, 'ws');
  data = path.join(base, 'data');
  fs.mkdirSync(root);
  fs.mkdirSync(data);
});
afterEach(async () => {
  for (const h of hubs.splice(0)) await h.close();
  fs.rmSync(base, { recursive: true, force: true });
});

const hub = (env: NodeJS.ProcessEnv = {}) => {
  const h = new McpHub({ root, dataFolder: data, env: { PATH: process.env.PATH, ...env } });
  hubs.push(h);
  return h;
};
const workspaceView = (h: McpHub) => h.configView().files.find((f) => f.scope === 'workspace')!;

describe('a workspace .mcp.json as an attacker writes it', { timeout: 60_000 }, () => {
  it('a link to a secret outside the workspace is refused without echoing it; nothing is approved', async () => {
    fs.writeFileSync(path.join(base, 'netrc'), `${SECRET} machine x password y`);
    fs.symlinkSync(path.join(base, 'netrc'), path.join(root, '.mcp.json'));
    const f = workspaceView(hub());
    expect(f.problems.join('\n')).toContain('is a link to a file outside the workspace');
    expect(JSON.stringify(hub().configView())).not.toContain(SECRET);
    expect(f).toMatchObject({ broken: true, needsApproval: false, servers: [] });
    await expect(hub().approveWorkspaceFile(f.hash)).rejects.toThrow(/cannot be approved|There is no/);
  });

  it('a file that is not JSON never has its text in the error (Node quotes it), only line and column', () => {
    fs.writeFileSync(path.join(root, '.mcp.json'), `${SECRET}`);
    fs.writeFileSync(path.join(root, 'other.json'), `{"mcpServers": {"a": ${SECRET}}}`);
    const a = readConfigFile(path.join(root, '.mcp.json'), 'workspace');
    const b = readConfigFile(path.join(root, 'other.json'), 'workspace');
    expect(a.problems[0]).toMatch(/is not valid JSON/);
    expect(b.problems[0]).toMatch(/is not valid JSON/);
    expect(JSON.stringify([a, b])).not.toContain(SECRET.slice(0, 8));
  });

  it('/dev/zero, a FIFO and an oversized file are refused at once, by what they are', () => {
    fs.symlinkSync('/dev/zero', path.join(base, 'zero.json'));
    const within = { within: base };
    const started = Date.now();
    expect(readConfigFile('/dev/zero', 'user').problems[0]).toMatch(/is a device, not a regular file/);
    expect(readConfigFile(path.join(base, 'zero.json'), 'workspace', within).problems[0]).toMatch(/outside the workspace/);
    execFileSync('mkfifo', [path.join(root, '.mcp.json')]);
    expect(workspaceView(hub()).problems[0]).toMatch(/is a FIFO, not a regular file/);
    fs.writeFileSync(path.join(base, 'big.json'), Buffer.alloc(MAX_CONFIG_BYTES + 10, 0x20));
    expect(readConfigFile(path.join(base, 'big.json'), 'user').problems[0]).toMatch(/more than the 1048576/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("${VAR} reads only what the person allowed for that entry; the view shows it as written and masked", async () => {
    writeConfig(path.join(root, '.mcp.json'), {
      leak: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' } },
      fine: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer ${API_TOKEN}' } },
    });
    const h = hub({ GITHUB_TOKEN: SECRET, API_TOKEN: `${SECRET}-api` });
    const before = h.configView();
    expect(JSON.stringify(before)).not.toContain(SECRET);
    const leak = before.servers.find((s) => s.name === 'leak')!;
    expect(leak.launch).toBe('http://127.0.0.1:9/mcp (Streamable HTTP)');
    expect(leak.receives).toEqual(['headers.Authorization: Bearer ${GITHUB_TOKEN} → Bearer «GITHUB_TOKEN: not given»']);

    const file = path.join(root, '.mcp.json');
    h.approvals.allowEnv(file, 'fine', ['API_TOKEN']);
    const after = h.configView();
    expect(JSON.stringify(after)).not.toContain(SECRET);
    expect(after.servers.find((s) => s.name === 'fine')!.receives).toEqual([`headers.Authorization: Bearer \${API_TOKEN} → Bearer «API_TOKEN: ${SECRET.length + 4} characters»`]);
    // What would really be sent: the allowed variable to its own entry, nothing to the other.
    const parsed = readConfigFile(file, 'workspace', { env: { GITHUB_TOKEN: SECRET, API_TOKEN: 'tok' }, allowed: (s) => h.approvals.allowedEnv(file, s) });
    expect(parsed.servers.map((s) => [s.name, s.missing ?? (s.transport as { headers: object }).headers])).toEqual([
      ['leak', 'headers.Authorization uses ${GITHUB_TOKEN}, which you have not allowed for this server (keel mcp approve --allow-env GITHUB_TOKEN)'],
      ['fine', { Authorization: 'Bearer tok' }],
    ]);
    // Started, the entry that may not read its variable fails, saying why; nothing was sent.
    h.approvals.approve(file, workspaceView(h).hash);
    await h.start();
    expect(h.view().servers.find((s) => s.name === 'leak')).toMatchObject({ state: 'failed', lastError: expect.stringMatching(/not allowed for this server/) });
  });

  it('the approval covers the script the entry runs: a changed server.mjs asks again and does not start', async () => {
    // The workspace's script loads the test server (whose imports resolve beside it).
    fs.writeFileSync(path.join(root, 'server.mjs'), `await import(${JSON.stringify(GROWING)});\n`);
    writeConfig(path.join(root, '.mcp.json'), { local: { command: process.execPath, args: ['server.mjs'] } });
    const h = hub();
    const shown = workspaceView(h);
    expect(shown.runs).toEqual(['server.mjs']);
    await h.approveWorkspaceFile(shown.hash);
    expect(h.connection('local')?.state, h.connection('local')?.lastError).toBe('connected');
    await h.close();

    fs.appendFileSync(path.join(root, 'server.mjs'), '\n// planted\n');
    const again = hub();
    expect(workspaceView(again).needsApproval).toBe(true);
    await again.start();
    expect(again.connection('local')).toBeUndefined();
    expect(again.view().servers[0].state).toBe('not approved');
    // The hash shown before the change no longer approves anything.
    await expect(again.approveWorkspaceFile(shown.hash)).rejects.toThrow(/or a file it runs changed since it was shown/);
  });

  it('an entry shown for approval never carries a filled-in secret, even in a failed start', async () => {
    writeConfig(path.join(data, 'mcp.json'), { mine: { ...entry(nodeServer(path.join(root, 'missing.mjs'), ['--token=${MY_TOKEN}'])) } });
    const h = hub({ MY_TOKEN: SECRET });
    await h.start();
    const view = JSON.stringify(h.view());
    expect(h.view().servers[0].state).not.toBe('connected');
    expect(view).toContain('--token=${MY_TOKEN}');
    expect(view).not.toContain(SECRET);
  });
});
