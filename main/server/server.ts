/**
 * Browser mode: the same contract as the Electron window, over loopback HTTP and a WebSocket.
 *
 * Anything on this machine (another user's process, a web page in any browser tab) can reach a
 * port on 127.0.0.1, so every request must prove it came from the person who started the server:
 *  - a random per-start token (256 bits) is the first path segment of every URL, compared in
 *    constant time; without it there is nothing but an empty 404;
 *  - the Host header must be exactly 127.0.0.1:PORT or localhost:PORT (DNS rebinding: a page on
 *    evil.com re-pointed at 127.0.0.1 still sends Host evil.com);
 *  - an Origin, when sent, must be this server's own; the WebSocket upgrade must send one (browsers
 *    always do), and `null` is refused;
 *  - the socket listens on 127.0.0.1 only.
 * Static files come from the built renderer only (static.ts), with a CSP header, nosniff and
 * no-store; the page's URL holds the token, so no Referer is ever sent.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { Host } from '../appHost.js';
import { MAX_MESSAGE_BYTES, parseCall, type ServerMessage } from './protocol.js';
import { contentType, headerCsp, resolveFile } from './static.js';

export const LOOPBACK = '127.0.0.1';
/** A client that lets this much of our output pile up unread is dropped. */
const MAX_BUFFERED_BYTES = 64 * 1024 * 1024;

export interface ServerOptions {
  /** The app host whose contract is served (startHost). */
  host: Pick<Host, 'call' | 'subscribe'>;
  /** 0 or absent: a free port. */
  port?: number;
  /** The built renderer (out/renderer), with index.html. */
  rendererDir: string;
  /** Fixed token for tests; absent: a fresh random one. At least 22 base64url characters. */
  token?: string;
}

export interface RunningServer {
  /** The page to open, token included: http://127.0.0.1:PORT/<token>/ */
  url: string;
  port: number;
  token: string;
  /** Closes every socket and the server. */
  close(): Promise<void>;
}

const sha256 = (text: string): Buffer => crypto.createHash('sha256').update(text).digest();

export async function startServer(o: ServerOptions): Promise<RunningServer> {
  const token = o.token ?? crypto.randomBytes(32).toString('base64url');
  if (!/^[A-Za-z0-9_-]{22,}$/.test(token)) throw new Error('The token must be at least 22 base64url characters (128 bits).');
  const tokenDigest = sha256(token);
  const root = fs.realpathSync(path.resolve(o.rendererDir));
  const indexFile = path.join(root, 'index.html');
  if (!fs.existsSync(indexFile)) throw new Error(`${indexFile} does not exist: build the renderer first (npx electron-vite build).`);

  let port = 0;
  let csp = '';
  const sockets = new Set<WebSocket>();
  const server = http.createServer();
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES, perMessageDeflate: false });

  const hostAllowed = (value: string | undefined): boolean => value === `${LOOPBACK}:${port}` || value === `localhost:${port}`;
  const originAllowed = (value: string | undefined): boolean => value === `http://${LOOPBACK}:${port}` || value === `http://localhost:${port}`;
  /** The part of a raw request path after `/<token>/`; null for exactly `/<token>`; undefined when the token is wrong. */
  const afterToken = (rawUrl: string | undefined): string | null | undefined => {
    if (!rawUrl?.startsWith('/')) return undefined;
    const pathOnly = rawUrl.split(/[?#]/, 1)[0];
    const slash = pathOnly.indexOf('/', 1);
    const given = slash === -1 ? pathOnly.slice(1) : pathOnly.slice(1, slash);
    if (!crypto.timingSafeEqual(sha256(given), tokenDigest)) return undefined;
    return slash === -1 ? null : pathOnly.slice(slash + 1);
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const fetchSite = req.headers['sec-fetch-site'];
    if (!hostAllowed(req.headers.host)) return refuse(res, 403);
    if (req.headers.origin !== undefined && !originAllowed(req.headers.origin)) return refuse(res, 403);
    if (fetchSite !== undefined && fetchSite !== 'same-origin' && fetchSite !== 'none') return refuse(res, 403);
    const rest = afterToken(req.url);
    if (rest === undefined) return refuse(res, 404);
    if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, 405, { Allow: 'GET, HEAD' });
    if (rest === null) return refuse(res, 308, { Location: `/${token}/` });
    const file = await resolveFile(root, rest);
    if (!file) return refuse(res, 404);
    const body = await fs.promises.readFile(file);
    res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Security-Policy': csp, 'Content-Type': contentType(file), 'Content-Length': String(body.length) });
    res.end(req.method === 'HEAD' ? undefined : body);
  };

  server.on('request', (req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) refuse(res, 500);
      else res.destroy();
    });
  });

  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (!hostAllowed(req.headers.host) || !originAllowed(req.headers.origin)) return refuseUpgrade(socket, 403);
    if (req.url?.includes('?') || afterToken(req.url) !== 'ws') return refuseUpgrade(socket, 404);
    wss.handleUpgrade(req, socket, head, (ws) => connect(ws));
  });

  const connect = (ws: WebSocket): void => {
    sockets.add(ws);
    const send = (message: ServerMessage): void => {
      if (ws.readyState !== ws.OPEN) return;
      if (ws.bufferedAmount > MAX_BUFFERED_BYTES) return ws.terminate();
      ws.send(JSON.stringify(message));
    };
    const unsubscribe = o.host.subscribe((event) => send({ event }));
    ws.on('message', (data: RawData, isBinary: boolean) => {
      const call = parseCall(toBuffer(data), isBinary);
      if ('error' in call) return send({ id: call.id, ok: false, error: call.error });
      void o.host.call(call.method, call.args).then((reply) => send({ id: call.id, ...reply }));
    });
    ws.on('close', () => {
      unsubscribe();
      sockets.delete(ws);
    });
    ws.on('error', () => ws.terminate());
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, LOOPBACK, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  csp = headerCsp(fs.readFileSync(indexFile, 'utf8'), port);

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      for (const ws of sockets) ws.close(1001, 'Keel is closing');
      const stragglers = setTimeout(() => sockets.forEach((ws) => ws.terminate()), 500);
      stragglers.unref();
      wss.close();
      server.close(() => {
        clearTimeout(stragglers);
        resolve();
      });
      server.closeIdleConnections();
    });
    return closing;
  };

  return { url: `http://${LOOPBACK}:${port}/${token}/`, port, token, close };
}

const SECURITY_HEADERS = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** A refusal carries no content: nothing about the app leaks to whoever asked. */
function refuse(res: http.ServerResponse, status: number, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Length': '0', ...extra });
  res.end();
}

function refuseUpgrade(socket: Duplex, status: 403 | 404): void {
  socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  socket.destroy();
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
