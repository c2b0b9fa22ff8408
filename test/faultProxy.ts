/**
 * A small loopback proxy in front of a real server, for the faults the server will not produce on
 * demand: busy answers (429/503), a malformed stream, a stream that goes quiet, a tool call with
 * bad JSON arguments. Everything else passes through unchanged, bodies recorded.
 */
import http from 'node:http';
import type net from 'node:net';

export type Fault =
  | { kind: 'busy'; status: 429 | 503; times: number; retryAfter?: number }
  | { kind: 'malformed' }
  | { kind: 'hang' }
  | { kind: 'bad-arguments'; name: string; arguments: string };

export interface FaultProxy {
  url: string;
  /** Faults for the next requests to /v1/chat/completions or /completion, in order. */
  faults: Fault[];
  /** Request bodies as they passed, by path. */
  bodies: { path: string; body: string }[];
  /** Statuses the proxy answered itself. */
  answered: number[];
  close(): Promise<void>;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const sockets = new Set<net.Socket>();
  const proxy: FaultProxy = { url: '', faults: [], bodies: [], answered: [], close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const p = req.url ?? '/';
      proxy.bodies.push({ path: p, body: body.toString() });
      const generating = p === '/v1/chat/completions' || p === '/completion';
      const fault = generating ? proxy.faults[0] : undefined;
      if (fault?.kind === 'busy') {
        if (--fault.times <= 0) proxy.faults.shift();
        proxy.answered.push(fault.status);
        res.writeHead(fault.status, { 'Content-Type': 'application/json', ...(fault.retryAfter ? { 'Retry-After': String(fault.retryAfter) } : {}) });
        res.end(JSON.stringify({ error: { code: fault.status, message: 'busy (fault proxy)' } }));
        return;
      }
      if (fault) proxy.faults.shift();
      if (fault?.kind === 'hang') return; // never answers; the client's timeout must end it
      if (fault?.kind === 'bad-arguments') {
        // The reply a model gives with broken arguments (a random test model cannot be made to).
        const call = { index: 0, id: 'call_bad', type: 'function', function: { name: fault.name, arguments: fault.arguments } };
        const chunk = (o: object) => `data: ${JSON.stringify({ object: 'chat.completion.chunk', ...o })}\n\n`;
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        res.end(chunk({ choices: [{ index: 0, delta: { role: 'assistant', tool_calls: [call] }, finish_reason: null }] }) +
          chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }) +
          chunk({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }) + 'data: [DONE]\n\n');
        return;
      }
      // A fresh connection per request: a kept-alive socket the server closed would fail as a fault of its own.
      const up = http.request(`${target}${p}`, { method: req.method, agent: false, headers: { ...req.headers, host: new URL(target).host } }, (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        let first = true;
        upRes.on('data', (c: Buffer) => {
          if (first && fault?.kind === 'malformed') res.write('data: {"choices": [ this is not json\n\n');
          first = false;
          res.write(c);
        });
        upRes.on('end', () => res.end());
      });
      up.on('error', () => res.destroy());
      up.end(body);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  proxy.close = () => new Promise((resolve) => {
    for (const s of sockets) s.destroy();
    server.close(() => resolve());
  });
  return proxy;
}
