import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RawOutput } from '../core/tools/types.js';
import type { ServerConfig, Transport } from './config.js';
import { McpConnection, type ConnectionOptions } from './connection.js';
import { EVERYTHING, everythingOverHttp, FILESYSTEM, GARBAGE, GROWING, nodeServer } from '../../test/mcp/servers.js';

let tmp: string;
const open: McpConnection[] = [];
const stops: (() => Promise<void>)[] = [];

beforeEach(() => { tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-mcpconn-'))); });
afterEach(async () => {
  for (const c of open.splice(0)) await c.stop();
  for (const stop of stops.splice(0)) await stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function connect(name: string, transport: Transport, o: Partial<ConnectionOptions> = {}): Promise<McpConnection> {
  const config: ServerConfig = { name, scope: 'user', file: path.join(tmp, 'mcp.json'), transport };
  const c = new McpConnection(config, { cwd: tmp, ...o });
  open.push(c);
  await c.start();
  return c;
}

const text = (r: RawOutput) => (r.kind === 'text' ? r.body : r.kind === 'error' ? r.message : JSON.stringify(r));

describe('an MCP server over stdio: server-everything', { timeout: 60_000 }, () => {
  it('initializes, lists its tools with their schemas and hints, gives its instructions, and answers calls', async () => {
    const c = await connect('everything', nodeServer(EVERYTHING, ['stdio']));
    expect(c.state).toBe('connected');
    expect(c.via).toBe('stdio');
    const echo = c.tools.find((t) => t.tool === 'echo')!;
    expect(echo).toMatchObject({ name: 'mcp__everything__echo', description: 'Echoes back the input string', readOnly: true });
    expect(echo.inputSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } }, required: ['message'] });
    expect(c.tools.find((t) => t.tool === 'get-sum')?.name).toBe('mcp__everything__get-sum');
    expect(c.instructions).toMatch(/^# Everything Server – Server Instructions/);
    expect(await c.call('mcp__everything__echo', { message: 'hello' })).toEqual({ kind: 'text', body: 'Echo: hello' });
    expect(text(await c.call('mcp__everything__get-sum', { a: 2, b: 40 }))).toMatch(/\b42\b/);
  });

  it('describes an image in text and keeps its bytes in full as an attachment', async () => {
    const c = await connect('everything', nodeServer(EVERYTHING, ['stdio']));
    const r = await c.call('mcp__everything__get-tiny-image', {});
    if (r.kind !== 'text') throw new Error(`expected text, got ${JSON.stringify(r)}`);
    const [png] = r.attachments ?? [];
    expect(png.mimeType).toBe('image/png');
    expect(png.data.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(r.body).toBe(`Here's the image you requested:\n[image image/png, ${png.data.length} bytes, stored with this result]\nThe image above is the MCP logo.`);
  });

  it('reports progress of a long call, and a stop cancels it at once while the server goes on serving', async () => {
    const c = await connect('everything', nodeServer(EVERYTHING, ['stdio']));
    const controller = new AbortController();
    const progress: number[] = [];
    const started = Date.now();
    const r = await c.call('mcp__everything__trigger-long-running-operation', { duration: 30, steps: 30 }, {
      signal: controller.signal,
      onProgress: (p) => {
        progress.push(p.progress);
        if (p.progress === 2) controller.abort();
      },
    });
    expect(progress).toEqual([1, 2]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r).toEqual({ kind: 'error', message: 'Error: mcp__everything__trigger-long-running-operation was stopped before the MCP server everything answered.' });
    expect(await c.call('mcp__everything__echo', { message: 'still here' })).toEqual({ kind: 'text', body: 'Echo: still here' });
  });

  it('passes on an error result as an error, and an unknown tool as not listed', async () => {
    const c = await connect('everything', nodeServer(EVERYTHING, ['stdio']));
    const bad = await c.call('mcp__everything__get-sum', { a: 'two' });
    expect(bad.kind).toBe('error');
    expect(text(bad)).toMatch(/^Error: mcp__everything__get-sum (reported an error|failed on the MCP server everything)/);
    expect(await c.call('mcp__everything__nope', {})).toEqual({
      kind: 'error', message: 'Error: mcp__everything__nope is unavailable: the MCP server everything no longer lists it.',
    });
  });

  it('goes to "disconnected" when its process is killed, answers unavailable, and comes back on restart', async () => {
    const c = await connect('everything', nodeServer(EVERYTHING, ['stdio']));
    const pid = c.pid!;
    process.kill(pid, 'SIGKILL');
    await until(() => c.state === 'disconnected');
    expect(c.lastError).toMatch(/the connection closed/);
    expect(await c.call('mcp__everything__echo', { message: 'x' })).toEqual({
      kind: 'error',
      message: "Error: mcp__everything__echo is unavailable: the MCP server everything is not connected (disconnected). Its tools stay in this session's list and answer again once it is back.",
    });
    await c.start();
    expect(c.state).toBe('connected');
    expect(c.pid).not.toBe(pid);
    expect(await c.call('mcp__everything__echo', { message: 'back' })).toEqual({ kind: 'text', body: 'Echo: back' });
  });

  it('runs the launch through wrapLaunch (where the OS sandbox plugs in)', async () => {
    const seen: string[][] = [];
    const c = await connect('everything', { type: 'stdio', command: 'placeholder', args: ['stdio'], env: {} }, {
      wrapLaunch: async (command, args, server) => {
        seen.push([command, ...args, server.name, server.cwd]);
        return { command: process.execPath, args: [EVERYTHING, ...args] };
      },
    });
    expect(seen).toEqual([['placeholder', 'stdio', 'everything', tmp]]);
    expect(c.state).toBe('connected');
  });
});

describe('server-filesystem over stdio', { timeout: 60_000 }, () => {
  it('lists a folder and reads a file through its tools, and marks its writers as not read-only', async () => {
    const dir = path.join(tmp, 'allowed');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'hello.txt'), 'hello from a file\n');
    const c = await connect('fs', nodeServer(FILESYSTEM, [dir]));
    expect(c.state).toBe('connected');
    expect(c.tools.find((t) => t.tool === 'write_file')?.readOnly).toBe(false);
    expect(c.tools.find((t) => t.tool === 'read_text_file')?.readOnly).toBe(true);
    expect(text(await c.call('mcp__fs__list_directory', { path: dir }))).toBe('[FILE] hello.txt');
    expect(text(await c.call('mcp__fs__read_text_file', { path: path.join(dir, 'hello.txt') }))).toBe('hello from a file\n');
    const outside = await c.call('mcp__fs__read_text_file', { path: '/etc/hostname' });
    expect(outside.kind).toBe('error');
    expect(text(outside)).toMatch(/Access denied|outside allowed/i);
  });
});

describe('server-everything over HTTP', { timeout: 60_000 }, () => {
  it('speaks Streamable HTTP', async () => {
    const server = await everythingOverHttp('streamableHttp');
    stops.push(server.stop);
    const c = await connect('remote', { type: 'http', url: server.url, headers: {} });
    expect(c.state).toBe('connected');
    expect(c.via).toBe('streamable-http');
    expect(c.instructions).toMatch(/Everything Server/);
    expect(await c.call('mcp__remote__echo', { message: 'over http' })).toEqual({ kind: 'text', body: 'Echo: over http' });
  });

  it('falls back to HTTP+SSE for a server that speaks only that', async () => {
    const server = await everythingOverHttp('sse');
    stops.push(server.stop);
    const c = await connect('old', { type: 'http', url: server.url, headers: {} });
    expect(c.lastError).toBeUndefined();
    expect(c.state).toBe('connected');
    expect(c.via).toBe('sse');
    expect(await c.call('mcp__old__echo', { message: 'over sse' })).toEqual({ kind: 'text', body: 'Echo: over sse' });
  });

  it('a server that goes away mid-session is disconnected, and its calls answer unavailable or failed', async () => {
    const server = await everythingOverHttp('streamableHttp');
    const c = await connect('remote', { type: 'http', url: server.url, headers: {} });
    await server.stop();
    const r = await c.call('mcp__remote__echo', { message: 'anyone?' });
    expect(r.kind).toBe('error');
    expect(text(r)).toMatch(/^Error: mcp__remote__echo (failed on the MCP server remote|is unavailable: the MCP server remote)/);
  });
});

describe('servers that fail', { timeout: 60_000 }, () => {
  it('a command that does not exist fails at once, naming the command', async () => {
    const c = await connect('missing', { type: 'stdio', command: 'keel-no-such-mcp-server', args: ['--x'], env: {} });
    expect(c.state).toBe('failed');
    expect(c.lastError).toMatch(/^keel-no-such-mcp-server --x: .*ENOENT/);
  });

  it('a server that exits at start fails with what it wrote on stderr', async () => {
    const c = await connect('crash', nodeServer(GARBAGE, ['crash']));
    expect(c.state).toBe('failed');
    expect(c.lastError).toMatch(/Its last words on stderr:\ncannot open the database: permission denied$/);
  });

  it('a server that writes garbage and never answers fails after the connect timeout, saying what it wrote', async () => {
    const started = Date.now();
    const c = await connect('noise', nodeServer(GARBAGE, ['noise']), { connectTimeoutMs: 1500 });
    expect(c.state).toBe('failed');
    expect(Date.now() - started).toBeLessThan(8000);
    expect(c.lastError).toMatch(/no answer in 2 s/);
  });

  it('a malformed tools/call result is an error result, and the server stays usable', async () => {
    const c = await connect('garbage', nodeServer(GARBAGE, ['bad-result']));
    expect(c.state).toBe('connected');
    const r = await c.call('mcp__garbage__broken', {});
    expect(r.kind).toBe('error');
    expect(text(r)).toMatch(/^Error: mcp__garbage__broken failed on the MCP server garbage: /);
    expect(c.state).toBe('connected');
  });
});

describe('a tool list that changes', { timeout: 60_000 }, () => {
  it('is listed again on tools/list_changed, and a name a model cannot carry is made safe', async () => {
    let changes = 0;
    const c = await connect('growing', nodeServer(GROWING), { onChange: () => changes++ });
    expect(c.tools.map((t) => [t.name, t.tool])).toEqual([
      ['mcp__growing__grow', 'grow'], ['mcp__growing__look_around', 'look.around'], ['mcp__growing__write_note', 'write_note'],
    ]);
    const before = changes;
    expect(text(await c.call('mcp__growing__grow', {}))).toBe('Grown.');
    await until(() => c.tools.some((t) => t.tool === 'grown'));
    expect(changes).toBeGreaterThan(before);
    expect(text(await c.call('mcp__growing__look_around', {}))).toBe(`cwd ${tmp}`);
  });
});

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}
