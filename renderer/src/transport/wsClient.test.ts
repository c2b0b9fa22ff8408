import { describe, expect, it } from 'vitest';
import { socketUrl, WsClient, type SocketLike } from './wsClient.js';

/** A WebSocket stand-in: records what was sent; the test opens, answers and drops it. */
class FakeSocket implements SocketLike {
  static all: FakeSocket[] = [];
  readyState = 0;
  sent: { id: number; method: string; args: unknown[] }[] = [];
  onopen: ((ev: unknown) => void) | null = null;
  onclose: ((ev: unknown) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.all.push(this);
  }
  send(data: string) {
    this.sent.push(JSON.parse(data));
  }
  close() {
    this.readyState = 3;
    this.onclose?.({});
  }
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  reply(message: unknown) {
    this.onmessage?.({ data: JSON.stringify(message) });
  }
}

function setup() {
  FakeSocket.all = [];
  const timers: (() => void)[] = [];
  const delays: number[] = [];
  const ws = new WsClient({
    url: 'ws://127.0.0.1:4000/tok/ws',
    connect: (url) => new FakeSocket(url),
    setTimer: (fn, ms) => {
      timers.push(fn);
      delays.push(ms);
    },
  });
  return { ws, client: ws.client(), socket: () => FakeSocket.all.at(-1)!, timers, delays };
}

describe('WsClient', () => {
  it('matches each response to its request by id, in any order', async () => {
    const { client, socket } = setup();
    socket().open();
    const sessions = client.listSessions();
    const view = client.openSession(7);
    const [a, b] = socket().sent;
    expect(a).toMatchObject({ method: 'listSessions', args: [] });
    expect(b).toMatchObject({ method: 'openSession', args: [7] });
    socket().reply({ id: b!.id, ok: true, value: { summary: { id: 7 } } });
    socket().reply({ id: a!.id, ok: true, value: [{ id: 1 }] });
    await expect(view).resolves.toEqual({ summary: { id: 7 } });
    await expect(sessions).resolves.toEqual([{ id: 1 }]);
  });

  it('rejects with main’s readable error', async () => {
    const { client, socket } = setup();
    socket().open();
    const p = client.deleteSession(3);
    socket().reply({ id: socket().sent[0]!.id, ok: false, error: 'The session is answering; stop it first.' });
    await expect(p).rejects.toThrow('The session is answering; stop it first.');
  });

  it('delivers pushed events to listeners until they unsubscribe', () => {
    const { client, socket } = setup();
    socket().open();
    const got: unknown[] = [];
    const off = client.onEvent((e) => got.push(e));
    socket().reply({ event: { type: 'text', sessionId: 1, delta: 'Hi' } });
    off();
    socket().reply({ event: { type: 'text', sessionId: 1, delta: 'again' } });
    expect(got).toEqual([{ type: 'text', sessionId: 1, delta: 'Hi' }]);
  });

  it('holds calls made before the socket opens and sends them in order', async () => {
    const { client, socket } = setup();
    const p = client.getState();
    expect(socket().sent).toHaveLength(0);
    socket().open();
    expect(socket().sent.map((m) => m.method)).toEqual(['getState']);
    socket().reply({ id: socket().sent[0]!.id, ok: true, value: { modelsFolder: '/m' } });
    await expect(p).resolves.toEqual({ modelsFolder: '/m' });
  });

  it('says it is disconnected, rejects calls in flight, and reconnects with growing delays', async () => {
    const { client, socket, timers, delays } = setup();
    const states: string[] = [];
    client.onConnection!((s) => states.push(s));
    socket().open();
    const inFlight = client.send(1, 'hello');
    const first = socket();
    first.close();
    await expect(inFlight).rejects.toThrow(/lost/);
    expect(states).toEqual(['connecting', 'connected', 'disconnected']);
    timers.shift()!();
    expect(FakeSocket.all).toHaveLength(2);
    socket().close();
    timers.shift()!();
    expect(delays[1]).toBeGreaterThan(delays[0]!);
    socket().open();
    expect(states.at(-1)).toBe('connected');
  });
});

describe('socketUrl', () => {
  it('is the ws URL beside the page, token segment kept', () => {
    expect(socketUrl('http://127.0.0.1:4567/AbC_tok/')).toBe('ws://127.0.0.1:4567/AbC_tok/ws');
    expect(socketUrl('https://localhost:1/t/index.html?x=1#y')).toBe('wss://localhost:1/t/ws');
  });
});
