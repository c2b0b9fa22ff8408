import { ServerError } from './errors.js';

/**
 * The events of a Server-Sent Events stream, as parsed JSON, until `data: [DONE]` or the end. A
 * data line that is not JSON is a malformed stream (an error, never skipped: a skipped piece would be
 * a silently wrong reply). llama-server reports a failure mid-stream as an `error: {...}` line.
 * `ended` tells whether the stream finished with [DONE] (a server that omits it ends cleanly too).
 */
export async function* sseEvents(
  body: ReadableStream<Uint8Array>, url: string, onChunk: () => void,
): AsyncGenerator<Record<string, unknown>, void, void> {
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      onChunk();
      buffer += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).replace(/\r$/, '');
        buffer = buffer.slice(nl + 1);
        const event = parseLine(line, url);
        if (event === 'done') return;
        if (event) yield event;
      }
    }
    const event = parseLine(buffer.replace(/\r$/, ''), url);
    if (event && event !== 'done') yield event;
  } finally {
    reader.releaseLock();
  }
}

function parseLine(line: string, url: string): Record<string, unknown> | 'done' | undefined {
  if (line === '' || line.startsWith(':') || /^(event|id|retry):/.test(line)) return undefined;
  const m = /^(data|error):\s?(.*)$/.exec(line);
  if (!m) throw malformed(url, `a line that is not a Server-Sent Event: ${JSON.stringify(line.slice(0, 80))}`);
  if (m[1] === 'data' && m[2].trim() === '[DONE]') return 'done';
  let parsed: unknown;
  try {
    parsed = JSON.parse(m[2]);
  } catch {
    throw malformed(url, `an event that is not JSON: ${JSON.stringify(m[2].slice(0, 80))}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw malformed(url, `an event that is not a JSON object: ${JSON.stringify(m[2].slice(0, 80))}`);
  const error = (parsed as { error?: { message?: string } | string }).error;
  if (m[1] === 'error' || error !== undefined) {
    const said = typeof error === 'string' ? error : error?.message ?? m[2].slice(0, 200);
    throw new ServerError('http', url, `The server at ${url} reported an error mid-reply: ${said}. Retry the turn; if it persists, check the server's log.`);
  }
  return parsed as Record<string, unknown>;
}

export function malformed(url: string, what: string): ServerError {
  return new ServerError('malformed', url, `The server at ${url} sent a malformed stream (${what}). Keel stored nothing of this reply; retry the turn, and check that the URL is an OpenAI-compatible server.`);
}
