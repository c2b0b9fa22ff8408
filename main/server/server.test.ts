import crypto from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startHost, type Host } from '../appHost.js';
import type { KeelEvent } from '../contract.js';
import { DEFAULT_PROMPTS_DIR } from '../core/prompts/buildSystemPrompt.js';
import { startServer, type RunningServer } from './server.js';

const PAGE_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' ws://127.0.0.1:*; object-src 'none'; base-uri 'none'; form-action 'none'";
const SECRET = 'the-secret-outside-the-renderer-folder';

let tmp: string;
let workspace: string;
let host: Host;
let server: RunningServer;
let port: number;
let token: string;
let own: string;

beforeAll(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-server-')));
  const rendererDir = path.join(tmp, 'renderer');
  fs.mkdirSync(path.join(rendererDir, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(rendererDir, 'index.html'),
    `<!doctype html><html><head><meta http-equiv="Content-Security-Policy" content="${PAGE_CSP}" /></head>` +
    '<body><div id="root"></div><script type="module" src="./assets/app.js"></script></body></html>');
  fs.writeFileSync(path.join(rendererDir, 'assets', 'app.js'), 'console.log("keel");\n');
  fs.writeFileSync(path.join(rendererDir, '.env'), SECRET);
  fs.writeFileSync(path.join(tmp, 'secret.txt'), SECRET);
  fs.symlinkSync(path.join(tmp, 'secret.txt'), path.join(rendererDir, 'assets', 'link.txt'));
  workspace = path.join(tmp, 'ws');
  fs.mkdirSync(workspace);
  host = startHost({ dataFolder: path.join(tmp, 'home'), promptsDir: DEFAULT_PROMPTS_DIR });
  server = await startServer({ host, rendererDir });
  port = server.port;
  token = server.token;
  own = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await server?.close();
  await host?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

interface Reply { status: number; headers: http.IncomingHttpHeaders; body: string }

/** A raw HTTP request: the path goes out exactly as given (no normalisation) with these headers. */
function get(rawPath: string, headers: Record<string, string> = {}, method = 'GET', to = port): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: to, path: rawPath, method, setHost: false, headers: { Host: `127.0.0.1:${to}`, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A raw WebSocket upgrade; resolves with the status the server answered (101 when it accepted). */
function upgrade(rawPath: string, headers: Record<string, string | undefined>): Promise<number> {
  const all: Record<string, string> = {
    Host: `127.0.0.1:${port}`, Origin: own, Connection: 'Upgrade', Upgrade: 'websocket',
    'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': crypto.randomBytes(16).toString('base64'),
  };
  for (const [key, value] of Object.entries(headers)) {
    if (value === undefined) delete all[key];
    else all[key] = value;
  }
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: rawPath, setHost: false, headers: all });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

/** A real `ws` client speaking the protocol. */
class Client {
  private nextId = 1;
  readonly messages: Record<string, unknown>[] = [];
  private waiters: (() => void)[] = [];

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.messages.push(JSON.parse(String(data)) as Record<string, unknown>);
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  static async open(): Promise<Client> {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/${token}/ws`, { origin: own });
    const client = new Client(ws);
    await once(ws, 'open');
    return client;
  }

  async next(match: (m: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    for (;;) {
      const found = this.messages.findIndex(match);
      if (found !== -1) return this.messages.splice(found, 1)[0];
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  async raw(text: string | Buffer, id: unknown = null): Promise<Record<string, unknown>> {
    this.ws.send(text);
    return this.next((m) => 'ok' in m && m.id === id);
  }

  async call(method: string, ...args: unknown[]): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ id, method, args }));
    return this.next((m) => m.id === id);
  }

  close(): void {
    this.ws.close();
  }
}

describe('the right requests work', () => {
  it('serves the page under /<token>/ with the security headers', async () => {
    const res = await get(`/${token}/`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('<div id="root">');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain(`connect-src 'self' ws://127.0.0.1:${port}`);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('ws://127.0.0.1:*');
    expect((await get(`/${token}/index.html?x=1`)).body).toBe(res.body);
    expect((await get(`/${token}/`, { Host: `localhost:${port}` })).status).toBe(200);
    expect((await get(`/${token}/`, { Origin: own, 'Sec-Fetch-Site': 'same-origin' })).status).toBe(200);
  });

  it('serves an asset with its content type, and HEAD without a body', async () => {
    const res = await get(`/${token}/assets/app.js`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.body).toBe('console.log("keel");\n');
    const head = await get(`/${token}/assets/app.js`, {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
  });

  it('redirects /<token> to /<token>/ so relative assets resolve under the prefix', async () => {
    const res = await get(`/${token}`);
    expect(res.status).toBe(308);
    expect(res.headers.location).toBe(`/${token}/`);
  });

  it('answers listSessions, createSession then openSession over the socket', async () => {
    const client = await Client.open();
    expect(await client.call('listSessions')).toEqual({ id: 1, ok: true, value: [] });
    const created = await client.call('createSession', { workspace, kind: 'agent', mode: 'ask', title: 'Over the socket' });
    expect(created.ok).toBe(true);
    const summary = created.value as { id: number; title: string; workspace: string };
    expect(summary.title).toBe('Over the socket');
    const opened = await client.call('openSession', summary.id);
    expect(opened.ok).toBe(true);
    expect((opened.value as { summary: { id: number } }).summary.id).toBe(summary.id);
    const listed = await client.call('listSessions');
    expect((listed.value as { id: number }[]).map((s) => s.id)).toContain(summary.id);
    client.close();
  });

  it('pushes events to every connection', async () => {
    const a = await Client.open();
    const b = await Client.open();
    const { value } = await a.call('createSession', { workspace, kind: 'chat' });
    const id = (value as { id: number }).id;
    expect(await a.call('setMode', id, 'plan')).toEqual({ id: 2, ok: true });
    const expected: KeelEvent = { type: 'session-changed', sessionId: id };
    expect(await a.next((m) => 'event' in m)).toEqual({ event: expected });
    expect(await b.next((m) => 'event' in m)).toEqual({ event: expected });
    a.close();
    b.close();
  });

  it('makes a fresh 256-bit token for each start', async () => {
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const other = await startServer({ host, rendererDir: path.join(tmp, 'renderer') });
    expect(other.token).not.toBe(token);
    expect(other.url).toBe(`http://127.0.0.1:${other.port}/${other.token}/`);
    await other.close();
    await expect(startServer({ host, rendererDir: path.join(tmp, 'renderer'), token: 'short' })).rejects.toThrow(/128 bits/);
  });
});

describe('HTTP attacks are refused without content', () => {
  const refused = async (res: Promise<Reply>, status: number) => {
    const r = await res;
    expect(r.status).toBe(status);
    expect(r.body).toBe('');
  };

  it('no token, or a wrong token (also of the right length, or a prefix)', async () => {
    await refused(get('/'), 404);
    await refused(get('/index.html'), 404);
    await refused(get('/assets/app.js'), 404);
    await refused(get(`/${'A'.repeat(token.length)}/`), 404);
    await refused(get(`/${crypto.randomBytes(32).toString('base64url')}/index.html`), 404);
    await refused(get(`/${token.slice(0, -1)}/`), 404);
    await refused(get(`/${token}x/`), 404);
    await refused(get(`/x/${token}/`), 404);
    await refused(get(`http://127.0.0.1:${port}/`), 404);
  });

  it('a foreign Host header (DNS rebinding) or another port', async () => {
    await refused(get(`/${token}/`, { Host: `evil.com:${port}` }), 403);
    await refused(get(`/${token}/`, { Host: `127.0.0.1:${port + 1}` }), 403);
    await refused(get(`/${token}/`, { Host: '127.0.0.1' }), 403);
    await refused(get(`/${token}/`, { Host: `127.0.0.1:${port}.evil.com` }), 403);
  });

  it('a foreign or null Origin, and a cross-site fetch', async () => {
    await refused(get(`/${token}/`, { Origin: 'http://evil.com' }), 403);
    await refused(get(`/${token}/`, { Origin: 'null' }), 403);
    await refused(get(`/${token}/`, { Origin: `http://127.0.0.1:${port + 1}` }), 403);
    await refused(get(`/${token}/`, { 'Sec-Fetch-Site': 'cross-site' }), 403);
  });

  it('path traversal, raw or encoded, dot-files and symlinks out of the folder', async () => {
    for (const attack of [
      `/${token}/../../etc/passwd`, `/${token}/../secret.txt`, `/${token}/%2e%2e/secret.txt`,
      `/${token}/%2e%2e/%2e%2e/%2e%2e/etc/passwd`, `/${token}/..%2fsecret.txt`, `/${token}/assets/..%2f..%2fsecret.txt`,
      `/${token}/%2E%2E%5Csecret.txt`, `/${token}/..\\secret.txt`, `/${token}//etc/passwd`, `/${token}/%2fetc%2fpasswd`,
      `/${token}/assets/link.txt`, `/${token}/.env`, `/${token}/%2eenv`, `/${token}/assets/`, `/${token}/assets`,
      `/${token}/%00`, `/${token}/%zz`,
    ]) {
      const res = await get(attack);
      expect(res.status, attack).toBe(404);
      expect(res.body, attack).toBe('');
    }
  });

  it('other methods', async () => {
    await refused(get(`/${token}/`, {}, 'POST'), 405);
    await refused(get('/', {}, 'POST'), 404);
  });
});

describe('WebSocket upgrade attacks are refused', () => {
  it('accepts the right upgrade only', async () => {
    expect(await upgrade(`/${token}/ws`, {})).toBe(101);
    expect(await upgrade(`/${token}/ws`, { Host: `localhost:${port}`, Origin: `http://localhost:${port}` })).toBe(101);
  });

  it('no token or a wrong token', async () => {
    expect(await upgrade('/ws', {})).toBe(404);
    expect(await upgrade('/', {})).toBe(404);
    expect(await upgrade(`/${'A'.repeat(token.length)}/ws`, {})).toBe(404);
    expect(await upgrade(`/${token}/`, {})).toBe(404);
    expect(await upgrade(`/${token}/ws?x=1`, {})).toBe(404);
    expect(await upgrade(`/${token}/ws/`, {})).toBe(404);
  });

  it('a foreign, null or missing Origin', async () => {
    expect(await upgrade(`/${token}/ws`, { Origin: 'http://evil.com' })).toBe(403);
    expect(await upgrade(`/${token}/ws`, { Origin: 'null' })).toBe(403);
    expect(await upgrade(`/${token}/ws`, { Origin: `http://127.0.0.1:${port + 1}` })).toBe(403);
    expect(await upgrade(`/${token}/ws`, { Origin: undefined })).toBe(403);
  });

  it('a foreign Host header or another port', async () => {
    expect(await upgrade(`/${token}/ws`, { Host: `evil.com:${port}` })).toBe(403);
    expect(await upgrade(`/${token}/ws`, { Host: `127.0.0.1:${port + 1}` })).toBe(403);
  });

  it('a real ws client with a foreign origin fails to connect', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/${token}/ws`, { origin: 'http://evil.com' });
    const [, res] = (await once(ws, 'unexpected-response')) as [unknown, http.IncomingMessage];
    expect(res.statusCode).toBe(403);
    ws.on('error', () => undefined);
    ws.terminate();
  });
});

describe('bad messages are refused', () => {
  it('non-JSON, non-objects, binary frames and missing ids', async () => {
    const client = await Client.open();
    expect(await client.raw('not json')).toMatchObject({ id: null, ok: false, error: expect.stringMatching(/JSON/) });
    expect(await client.raw('[1,2]')).toMatchObject({ id: null, ok: false });
    expect(await client.raw(Buffer.from('{"id":1}'))).toMatchObject({ id: null, ok: false, error: expect.stringMatching(/binary/) });
    expect(await client.raw('{"method":"listSessions","args":[]}')).toMatchObject({ id: null, ok: false, error: expect.stringMatching(/id/) });
    // The socket stays usable after a bad message.
    expect((await client.call('listSessions')).ok).toBe(true);
    client.close();
  });

  it('an unknown method and wrong argument types', async () => {
    const client = await Client.open();
    expect(await client.call('eval', 'process.exit()')).toMatchObject({ ok: false, error: expect.stringMatching(/Unknown method/) });
    expect(await client.call('constructor')).toMatchObject({ ok: false, error: expect.stringMatching(/Unknown method/) });
    expect(await client.call('__proto__')).toMatchObject({ ok: false, error: expect.stringMatching(/Unknown method/) });
    expect(await client.call('openSession', '1')).toMatchObject({ ok: false, error: expect.stringMatching(/integer/) });
    expect(await client.call('openSession', 1, 2)).toMatchObject({ ok: false, error: expect.stringMatching(/at most 1/) });
    expect(await client.call('createSession', { workspace, kind: 'root' })).toMatchObject({ ok: false });
    expect(await client.call('setMode', 1, 'yolo')).toMatchObject({ ok: false, error: expect.stringMatching(/one of/) });
    expect(await client.raw('{"id":"a","method":"listSessions","args":{}}', 'a')).toMatchObject({ ok: false });
    expect(await client.call('openSession', 999)).toMatchObject({ ok: false });
    client.close();
  });

  it('closes the socket on a message over the size cap', async () => {
    const client = await Client.open();
    client.ws.send(JSON.stringify({ id: 1, method: 'send', args: [1, 'x'.repeat(1024 * 1024 + 1)] }));
    const [code] = (await once(client.ws, 'close')) as [number];
    expect(code).toBe(1009);
  });
});

describe('close', () => {
  it('closes open sockets and stops listening', async () => {
    const rendererDir = path.join(tmp, 'renderer');
    const other = await startServer({ host, rendererDir });
    const ws = new WebSocket(`ws://127.0.0.1:${other.port}/${other.token}/ws`, { origin: `http://127.0.0.1:${other.port}` });
    await once(ws, 'open');
    const closed = once(ws, 'close');
    await other.close();
    expect(((await closed) as [number])[0]).toBe(1001);
    await expect(get(`/${other.token}/`, {}, 'GET', other.port)).rejects.toThrow(/ECONNREFUSED/);
  });
});
