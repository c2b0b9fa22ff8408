import { METHODS, type KeelApi, type KeelEvent, type KeelMethod } from '../../../main/contract.js';
import type { Connection, ConnectionListener, EventListener, KeelClient } from './types.js';

/** The part of the browser's WebSocket the client uses (a test passes a fake class). */
export interface SocketLike {
  readyState: number;
  onopen: ((ev: unknown) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  send(data: string): void;
  close(): void;
}
export type SocketFactory = (url: string) => SocketLike;

export interface WsClientOptions {
  url: string;
  connect?: SocketFactory;
  /** Reconnect delays grow from `minDelayMs`, doubling, up to `maxDelayMs`. */
  minDelayMs?: number;
  maxDelayMs?: number;
  setTimer?: (fn: () => void, ms: number) => unknown;
}

const OPEN = 1;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  method: KeelMethod;
}

/**
 * The contract over the loopback WebSocket: `{id, method, args}` out, `{id, ok, value}` or
 * `{id, ok: false, error}` back, `{event}` pushed. Calls made while the link is down wait for it
 * (in order); calls in flight when it drops are rejected, since main may or may not have run them.
 */
export class WsClient {
  private socket?: SocketLike;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly outbox: { id: number; message: string }[] = [];
  private readonly eventListeners = new Set<EventListener>();
  private readonly connectionListeners = new Set<ConnectionListener>();
  private state: Connection = 'connecting';
  private detail?: string;
  private delay: number;
  private closed = false;

  constructor(private readonly o: WsClientOptions) {
    this.delay = o.minDelayMs ?? 500;
    this.open();
  }

  /** The contract plus onEvent/onConnection, as one object. */
  client(): KeelClient {
    const api = {} as Record<KeelMethod, (...args: unknown[]) => Promise<unknown>>;
    for (const method of METHODS) api[method] = (...args: unknown[]) => this.call(method, args);
    return Object.assign(api as unknown as KeelApi, {
      onEvent: (listener: EventListener) => this.onEvent(listener),
      onConnection: (listener: ConnectionListener) => this.onConnection(listener),
    });
  }

  call(method: KeelMethod, args: unknown[]): Promise<unknown> {
    const id = this.nextId++;
    const message = JSON.stringify({ id, method, args });
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      if (this.socket && this.socket.readyState === OPEN) this.socket.send(message);
      else this.outbox.push({ id, message });
    });
  }

  onEvent(listener: EventListener): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  onConnection(listener: ConnectionListener): () => void {
    this.connectionListeners.add(listener);
    listener(this.state, this.detail);
    return () => this.connectionListeners.delete(listener);
  }

  /** Stops for good (tests; a page being unloaded). */
  close(): void {
    this.closed = true;
    this.socket?.close();
  }

  private open(): void {
    const connect = this.o.connect ?? ((url: string) => new WebSocket(url) as unknown as SocketLike);
    let socket: SocketLike;
    try {
      socket = connect(this.o.url);
    } catch (err) {
      this.dropped((err as Error).message);
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      this.delay = this.o.minDelayMs ?? 500;
      this.setState('connected');
      for (const { message } of this.outbox.splice(0)) socket.send(message);
    };
    socket.onmessage = (ev) => this.receive(ev.data);
    socket.onerror = () => {
      // A close always follows; the close reconnects.
    };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      this.dropped('The connection to Keel was lost.');
    };
  }

  private dropped(reason: string): void {
    const waiting = new Set(this.outbox.map((m) => m.id));
    const sent = [...this.pending.entries()].filter(([id]) => !waiting.has(id));
    for (const [id, call] of sent) {
      this.pending.delete(id);
      call.reject(new Error(`${call.method}: ${reason} It may or may not have run; check before retrying.`));
    }
    if (this.closed) return;
    const wait = this.delay;
    this.delay = Math.min(this.delay * 2, this.o.maxDelayMs ?? 10_000);
    this.setState('disconnected', `${reason} Reconnecting in ${Math.round(wait / 100) / 10} s…`);
    const timer = this.o.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    timer(() => {
      if (this.closed) return;
      this.setState('connecting');
      this.open();
    }, wait);
  }

  private receive(data: unknown): void {
    let message: { id?: number; ok?: boolean; value?: unknown; error?: unknown; event?: KeelEvent };
    try {
      message = JSON.parse(String(data));
    } catch {
      return;
    }
    if (message.event) {
      for (const listener of this.eventListeners) listener(message.event);
      return;
    }
    if (typeof message.id !== 'number') return;
    const call = this.pending.get(message.id);
    if (!call) return;
    this.pending.delete(message.id);
    if (message.ok) call.resolve(message.value);
    else call.reject(new Error(errorText(message.error)));
  }

  private setState(state: Connection, detail?: string): void {
    this.state = state;
    this.detail = detail;
    for (const listener of this.connectionListeners) listener(state, detail);
  }
}

function errorText(error: unknown): string {
  if (typeof error === 'string') return error;
  if (error && typeof error === 'object' && 'message' in error) return String((error as { message: unknown }).message);
  return 'Keel could not do that (no reason given).';
}

/** `ws(s)://host/<token>/ws` for a page served at `http(s)://host/<token>/`. */
export function socketUrl(href: string): string {
  const url = new URL('ws', href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.hash = '';
  url.search = '';
  return url.toString();
}
