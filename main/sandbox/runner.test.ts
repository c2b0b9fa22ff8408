/**
 * The command sandbox on the real bubblewrap (CI installs it: .ci/run). Every command goes
 * through the real bash tool, as a session's would; the trees inside and outside the workspace
 * are compared before and after, and a loopback listener counts the connections it gets.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SandboxManager } from '@anthropic-ai/sandbox-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashTool } from '../core/tools/bash.js';
import type { CommandAccess } from '../core/tools/commandRunner.js';
import { makeContext } from '../../test/toolContext.js';
import { snapshotTree } from '../../test/outsideTree.js';
import { commandConfig, type CommandPolicy } from './policy.js';
import { createSandboxRunner, sandboxCommand, sandboxStatus } from './runner.js';
import { usePrivateTmpdir } from '../../test/privateTmpdir.js';

const SECRET = 'KEEL-SANDBOX-SECRET-51c0';
let base: string;
let root: string;
let home: string;
let data: string;
let listener: net.Server;
let port: number;
let connections = 0;
let runner: ReturnType<typeof createSandboxRunner>;

const put = (abs: string, content: string) => {
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, content);
};

usePrivateTmpdir();

beforeAll(async () => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-sandbox-')));
  root = path.join(base, 'ws');
  home = path.join(base, 'home');
  data = path.join(base, 'data-real');
  put(path.join(root, 'a.txt'), 'inside\n');
  execFileSync('git', ['init', '-q'], { cwd: root });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'one'], { cwd: root });
  put(path.join(home, '.ssh', 'id_rsa'), `${SECRET} key\n`);
  put(path.join(home, 'notes', 'private.txt'), `${SECRET} notes\n`);
  put(path.join(data, 'keel.db'), `${SECRET} store\n`);
  fs.symlinkSync(data, path.join(base, 'data'));
  put(path.join(base, 'outside', 'victim.txt'), 'victim\n');
  runner = createSandboxRunner({ dataFolder: path.join(base, 'data'), home, denyRead: ['~/notes'] });
  listener = net.createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as net.AddressInfo).port;
});

afterAll(() => {
  listener.close();
  fs.rmSync(base, { recursive: true, force: true });
});

async function run(command: string, access: CommandAccess): Promise<string> {
  const out = await bashTool.run({ command }, { ...makeContext(root), commands: runner, access });
  if (out.kind !== 'text') throw new Error(`expected text, got ${JSON.stringify(out)}`);
  return out.body;
}

const outside = () => snapshotTree(base, [root]);
/**
 * The workspace's entries and their bytes. A folder's mtime is left out: where a command may
 * write, the library puts empty mount points in the workspace for the protected names it does not
 * find there (.bashrc, .mcp.json…) and removes them afterwards, which touches the folder.
 */
const workspace = () => Object.fromEntries(Object.entries(snapshotTree(root, [])).map(([p, e]) => [p, e.type === 'dir' ? { ...e, mtimeMs: 0 } : e]));
const keelTemps = () => fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('keel-cmd-')).length;

describe('the command sandbox', () => {
  it('runs here, in bubblewrap', async () => {
    expect(await sandboxStatus()).toEqual({ kind: 'sandboxed', how: 'bubblewrap' });
  });

  it('read-only: no write but its own temp folder (removed afterwards), no network', async () => {
    const [out0, ws0, temps0] = [outside(), workspace(), keelTemps()];
    const body = await run(
      `echo x > new.txt; echo x > ${base}/outside/victim.txt; echo x > ~/made; rm -f a.txt; `
      + `echo t > "$TMPDIR/t" && cat "$TMPDIR/t"; node -e "require('net').connect(${port},'127.0.0.1').on('connect',()=>console.log('CONNECTED')).on('error',e=>console.log(e.code))"`,
      'read-only',
    );
    expect(body).toContain('Read-only file system');
    expect(body).toMatch(/\nt\n/);
    expect(body).not.toContain('CONNECTED');
    expect([outside(), workspace(), keelTemps(), connections]).toEqual([out0, ws0, temps0, 0]);
  });

  it('workspace-write: the workspace, never .git, Keel\'s data or outside, and no loopback', async () => {
    const out0 = outside();
    const head = fs.readFileSync(path.join(root, '.git', 'HEAD'), 'utf8');
    const body = await run(
      `echo made > made.txt; echo x > .git/HEAD; echo x > .git/hooks/pre-commit; echo x > ${base}/data/keel.db; `
      + `echo x > ${data}/keel.db; rm -rf ${base}/outside; curl -s --max-time 3 http://127.0.0.1:${port}/ || echo no-curl`,
      'workspace-write',
    );
    expect(fs.readFileSync(path.join(root, 'made.txt'), 'utf8')).toBe('made\n');
    expect(fs.readFileSync(path.join(root, '.git', 'HEAD'), 'utf8')).toBe(head);
    expect(fs.existsSync(path.join(root, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(outside()).toEqual(out0);
    expect(connections).toBe(0);
    expect(body).not.toContain(SECRET);
    fs.rmSync(path.join(root, 'made.txt'));
  });

  it('git-write: git commits, but .git/hooks and .git/config stay as they were', async () => {
    const config = fs.readFileSync(path.join(root, '.git', 'config'), 'utf8');
    const body = await run(
      'git -c user.name=t -c user.email=t@t commit -q --allow-empty -m two && git log --oneline | wc -l; '
      + 'echo x > .git/hooks/post-commit; git config core.hooksPath /tmp; echo rc=$?',
      'git-write',
    );
    expect(body).toMatch(/^2\n/);
    expect(body).toContain('rc=');
    expect(body).not.toContain('rc=0');
    expect(fs.readFileSync(path.join(root, '.git', 'config'), 'utf8')).toBe(config);
    expect(fs.existsSync(path.join(root, '.git', 'hooks', 'post-commit'))).toBe(false);
  });

  it('reads nothing it must not: ~/.ssh, the person\'s list, Keel\'s data under both its names', async () => {
    for (const access of ['read-only', 'workspace-write', 'git-write'] as const) {
      const body = await run(`cat ~/.ssh/id_rsa ~/notes/private.txt ${base}/data/keel.db ${data}/keel.db; grep -r KEEL-SANDBOX ${base}`, access);
      expect(body).not.toContain(SECRET);
    }
    expect(runner.deniedReads).toEqual(expect.arrayContaining([path.join(home, '.ssh'), path.join(home, 'notes'), path.join(base, 'data'), data]));
  });

  it('tells a failed command what it refused, and a command that worked nothing', async () => {
    const failed = await run(`echo x > ${base}/outside/victim.txt`, 'workspace-write');
    expect(failed).toContain(`[the sandbox refused: deny openat ${base}/outside/victim.txt]`);
    expect(await run(`echo x > "$TMPDIR/ok"; echo fine`, 'read-only')).toBe('fine');
  });

  it('leaves no mount point behind in the workspace, and read-only touches nothing at all', async () => {
    const mtime = fs.statSync(root).mtimeMs;
    await run('ls -a', 'read-only');
    expect(fs.statSync(root).mtimeMs).toBe(mtime);
    const before = workspace();
    await run('ls -a', 'workspace-write');
    await run('ls -a', 'read-only');
    expect(workspace()).toEqual(before);
  });

  it('a command granted no domain has no way out at all; one naming a network program keeps the proxy, whose refusal it is told', async () => {
    for (const access of ['read-only', 'workspace-write'] as const) {
      // No relay listening inside (they would count as TCP sockets in use), no proxy to be pointed at.
      const body = await run(`echo "proxy=\${HTTP_PROXY:-none}"; grep '^TCP:' /proc/net/sockstat; node -e "require('net').connect(${port},'127.0.0.1').on('connect',()=>console.log('CONNECTED')).on('error',e=>console.log(e.code))"`, access);
      expect(body).toMatch(/^proxy=none\nTCP: inuse 0 /);
      expect(body).toContain('ECONNREFUSED');
    }
    expect(connections).toBe(0);
    const refused = await run('curl -sS --max-time 10 https://example.com/', 'workspace-write');
    expect(refused).toContain('[the sandbox refused: deny network-outbound example.com:443');
  });

  it('leaves out the scan for protected names only where what it finds changes nothing: a read-only command\'s', async () => {
    const ws = path.join(base, 'scan');
    for (const rel of ['.bashrc', 'sub/.vscode/settings.json', 'sub/.mcp.json', 'inner/.git/HEAD', 'a/b/.gitconfig', '.claude/commands/x.md']) put(path.join(ws, rel), 'x\n');
    const tmp = fs.mkdtempSync(path.join(base, 'tmp-'));
    const line = async (access: CommandAccess, scan: boolean) => {
      const policy: CommandPolicy = { root: ws, access, tmp, deniedReads: [], dataFolders: [data], home, ...(access === 'read-only' ? {} : { git: { dirs: [], files: [] } }) };
      const before = process.cwd();
      process.chdir(ws);
      try {
        return await SandboxManager.wrapWithSandbox('true', 'bash', commandConfig(policy), undefined, { commandId: 'same', noNetwork: true, ...(scan ? {} : { mandatoryDenyScan: false }) });
      } finally {
        SandboxManager.cleanupAfterCommand();
        process.chdir(before);
      }
    };
    await sandboxStatus();
    expect(await line('read-only', false)).toBe(await line('read-only', true));
    // Where the workspace may be written, the scan's finds are denied: they are there to be found.
    const written = await line('workspace-write', true);
    for (const rel of ['sub/.vscode', 'sub/.mcp.json', 'inner/.git/hooks', 'a/b/.gitconfig']) expect(written).toContain(path.join(ws, rel));
    expect(await line('workspace-write', false)).not.toContain(path.join(ws, 'sub/.vscode'));
  });

  it('wraps a program launch (an MCP server) in the same sandbox', async () => {
    const script = "const fs=require('fs');console.log(process.cwd());try{fs.writeFileSync(process.argv[1],'x')}catch(e){console.log(e.code)}";
    const launch = await sandboxCommand('node', ['-e', script, `${base}/outside/victim.txt`], { dataFolder: data, home, root, access: 'workspace-write' });
    const out = await new Promise<string>((resolve) => {
      const child = spawn(launch.command, launch.args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.on('data', (d: Buffer) => (text += d));
      child.on('close', () => resolve(text));
    });
    launch.release();
    expect(out).toBe(`${root}\nEROFS\n`);
    expect(fs.readFileSync(path.join(base, 'outside', 'victim.txt'), 'utf8')).toBe('victim\n');
  });
});
