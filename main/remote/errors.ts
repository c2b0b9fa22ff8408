/**
 * What goes wrong between Keel and a model server, said so that a person can act on it: every message
 * names the server's URL and what to do. Never a key: messages are built from statuses and the
 * server's own error text, which never holds the Authorization header.
 */
export type ServerFault =
  | 'refused' | 'unreachable' | 'not found' | 'key' | 'unknown model' | 'busy' | 'timeout' | 'cut'
  | 'malformed' | 'http' | 'unsupported';

export class ServerError extends Error {
  constructor(readonly fault: ServerFault, readonly url: string, message: string, readonly status?: number) {
    super(message);
    this.name = 'ServerError';
  }
}

/** A fetch that threw before any answer: nothing listening, a name that does not resolve, a reset. */
export function connectionError(url: string, e: unknown): ServerError {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? '';
  if (code === 'ECONNREFUSED') {
    return new ServerError('refused', url, `Nothing is listening at ${url} (connection refused). Start the server, or check the URL and its port.`);
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new ServerError('unreachable', url, `The host of ${url} is not known (${code}). Check the URL.`);
  }
  const detail = cause?.message ?? (e as Error).message;
  return new ServerError('unreachable', url, `Could not reach the server at ${url} (${detail}). Check the URL and that the server is running.`);
}

/** An HTTP answer that is not a success, with the server's own words where it sent any. */
export function statusError(url: string, path: string, status: number, body: string): ServerError {
  const said = serverMessage(body);
  const tail = said ? ` The server said: ${said}` : '';
  if (status === 401 || status === 403) {
    return new ServerError('key', url, `The server at ${url} refused the API key (HTTP ${status}).${tail} Give the key the server expects (in the app's server settings, or KEEL_SERVER_KEY / a 0600 key file for the command line).`, status);
  }
  if (status === 404) {
    return new ServerError('not found', url, `The server at ${url} has no ${path} (HTTP 404).${tail} Check the URL: it is the server's base address (for example http://127.0.0.1:8080), and the server must speak the OpenAI-compatible API.`, status);
  }
  if (status === 429 || status === 503) {
    return new ServerError('busy', url, `The server at ${url} is busy (HTTP ${status}) and stayed so after Keel's retries.${tail} Wait and retry the turn, or lower the load on the server.`, status);
  }
  return new ServerError('http', url, `The server at ${url} answered HTTP ${status} to ${path}.${tail} Retry the turn; if it persists, check the server's log.`, status);
}

/** The `error.message` of an OpenAI-style error body, else the body's first 300 characters. */
export function serverMessage(body: string): string {
  const text = body.trim();
  if (text === '') return '';
  try {
    const parsed = JSON.parse(text) as { error?: { message?: string } | string; message?: string };
    const m = typeof parsed.error === 'string' ? parsed.error : parsed.error?.message ?? parsed.message;
    if (typeof m === 'string') return m.slice(0, 300);
  } catch {
    // not JSON: the text itself
  }
  return text.slice(0, 300);
}
