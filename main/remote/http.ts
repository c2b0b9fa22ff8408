import { connectionError, ServerError, statusError } from './errors.js';

/** How Keel talks to one server: its base URL, its key (never logged), its patience. */
export interface ClientOptions {
  /** The server's base address, e.g. http://127.0.0.1:8080 (a trailing `/v1` is accepted). */
  url: string;
  /** Sent as `Authorization: Bearer KEY`; never stored in a message, a log or a request record. */
  apiKey?: string;
  /** The longest wait for the answer's headers, and between two pieces of a stream (ms). */
  timeoutMs?: number;
  /** Waits before each retry of a 429/503 answer (ms); its length is the number of retries. */
  retryDelaysMs?: readonly number[];
  /** Something the person should see now (a retry, an interrupted reply). */
  onNotice?: (text: string) => void;
}

export const DEFAULT_TIMEOUT_MS = 600_000;
export const DEFAULT_RETRY_DELAYS_MS = [1000, 2000, 4000] as const;
/** A server's Retry-After is followed up to this (s): longer waits are the person's to decide. */
const MAX_RETRY_AFTER_S = 30;

/** The base address without a trailing slash or `/v1`: Keel adds the paths itself. */
export function baseUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    throw new ServerError('unreachable', url, `"${url}" is not a URL. Give the server's address, for example http://127.0.0.1:8080.`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new ServerError('unreachable', url, `"${url}" is not an http(s) URL. Give the server's address, for example http://127.0.0.1:8080.`);
  }
  return `${u.origin}${u.pathname.replace(/\/+$/, '').replace(/\/v1$/, '')}`;
}

/**
 * One HTTP exchange with the server: JSON out, a Response back once its status is a success.
 * 429 and 503 are retried after the configured waits (or the server's Retry-After), each retry
 * announced; every other failure becomes a ServerError that names the URL.
 */
export class ServerClient {
  readonly url: string;

  constructor(private readonly o: ClientOptions) {
    this.url = baseUrl(o.url);
  }

  get timeoutMs(): number {
    return this.o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  notice(text: string): void {
    this.o.onNotice?.(text);
  }

  async getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
    return this.readJson<T>(path, await this.request('GET', path, undefined, signal));
  }

  async postJson<T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
    return this.readJson<T>(path, await this.request('POST', path, JSON.stringify(body), signal));
  }

  /**
   * Sends `body` (already serialized: the caller keeps its exact bytes) and returns the successful
   * response with a timer that aborts the exchange when the server goes quiet for timeoutMs;
   * `touch()` restarts it, `done()` stops it.
   */
  async request(method: 'GET' | 'POST', path: string, body: string | undefined, signal?: AbortSignal): Promise<Response & { touch(): void; done(): void }> {
    const delays = this.o.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    let resent = false;
    for (let attempt = 0; ; attempt++) {
      const quiet = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      const touch = () => {
        clearTimeout(timer);
        timer = setTimeout(() => quiet.abort(), this.timeoutMs);
      };
      const done = () => clearTimeout(timer);
      touch();
      const signals = signal ? [signal, quiet.signal] : [quiet.signal];
      let res: Response;
      try {
        res = await fetch(`${this.url}${path}`, {
          method, body, signal: AbortSignal.any(signals),
          headers: {
            ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
            ...(this.o.apiKey ? { Authorization: `Bearer ${this.o.apiKey}` } : {}),
          },
        });
      } catch (e) {
        done();
        if (signal?.aborted) throw e;
        if (quiet.signal.aborted) throw this.timeoutError(path);
        // A kept-alive connection the server had closed (llama-server closes idle ones) fails before
        // the request is read: once, the request goes again on a new connection.
        const code = (e as { cause?: { code?: string } }).cause?.code;
        if (!resent && (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET')) {
          resent = true;
          attempt--;
          continue;
        }
        throw connectionError(this.url, e);
      }
      if (res.ok) return Object.assign(res, { touch, done });
      const text = await res.text().catch(() => '');
      done();
      if ((res.status === 429 || res.status === 503) && attempt < delays.length) {
        const after = Number(res.headers.get('retry-after'));
        const wait = Number.isFinite(after) && after > 0 ? Math.min(after, MAX_RETRY_AFTER_S) * 1000 : delays[attempt];
        this.notice(`The server at ${this.url} is busy (HTTP ${res.status}); retry ${attempt + 1} of ${delays.length} in ${(wait / 1000).toFixed(1)} s.`);
        await sleep(wait, signal);
        continue;
      }
      throw statusError(this.url, path, res.status, text);
    }
  }

  timeoutError(path: string): ServerError {
    return new ServerError('timeout', this.url, `The server at ${this.url} did not answer ${path} within ${(this.timeoutMs / 1000).toFixed(0)} s. Check that it is running and not overloaded, then retry the turn.`);
  }

  private async readJson<T>(path: string, res: Response & { done(): void }): Promise<T> {
    let text: string;
    try {
      text = await res.text();
    } catch (e) {
      throw new ServerError('cut', this.url, `The answer of ${this.url} to ${path} was cut off (${(e as Error).message}). Retry.`);
    } finally {
      res.done();
    }
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ServerError('malformed', this.url, `The server at ${this.url} answered ${path} with something that is not JSON (${JSON.stringify(text.slice(0, 80))}). Check that the URL is an OpenAI-compatible server.`);
    }
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(signal.reason);
    }, { once: true });
  });
}
