import { createParser, type EventSourceMessage, type ParseError } from 'eventsource-parser';
import { ServerError } from './errors.js';

/**
 * The events of a Server-Sent Events stream (framed by eventsource-parser, to the SSE standard), as
 * parsed JSON, until `data: [DONE]` or the end. An event whose data is not a JSON object is a
 * malformed stream (an error, never skipped: a skipped piece would be a silently wrong reply), and
 * so is a field the standard does not know. llama-server reports a failure mid-stream as an
 * `error: {...}` field, others as a data object with an `error` key: both are the server's error.
 * A server that omits [DONE] ends cleanly too.
 */
export async function* sseEvents(
  body: ReadableStream<Uint8Array>, url: string, onChunk: () => void,
): AsyncGenerator<Record<string, unknown>, void, void> {
  const decoder = new TextDecoder();
  /** What the parser framed since the last chunk, in order: an event's data, or a field it refused. */
  const framed: ({ data: string } | { refused: ParseError })[] = [];
  const parser = createParser({
    onEvent: (e: EventSourceMessage) => framed.push({ data: e.data }),
    onError: (refused) => framed.push({ refused }),
  });
  /** The framed events as JSON objects; 'done' at [DONE]. */
  function* drain(): Generator<Record<string, unknown> | 'done'> {
    for (const piece of framed.splice(0)) {
      if ('refused' in piece) {
        const { field, value, line, message } = piece.refused;
        if (field === 'error') throw serverError(url, parseObject(value ?? '', url), value ?? '');
        throw malformed(url, `a line that is not a Server-Sent Event: ${JSON.stringify((line ?? field ?? message).slice(0, 80))}`);
      }
      if (piece.data.trim() === '[DONE]') {
        yield 'done';
        return;
      }
      const event = parseObject(piece.data, url);
      if (event.error !== undefined) throw serverError(url, event, piece.data);
      yield event;
    }
  }
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      onChunk();
      parser.feed(decoder.decode(value, { stream: true }));
      for (const event of drain()) {
        if (event === 'done') return;
        yield event;
      }
    }
    // The end closes a last line and event left open (the standard would drop it; an abrupt server's last piece counts).
    parser.feed(`${decoder.decode()}\n\n`);
    for (const event of drain()) {
      if (event === 'done') return;
      yield event;
    }
  } finally {
    reader.releaseLock();
  }
}

function parseObject(data: string, url: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    throw malformed(url, `an event that is not JSON: ${JSON.stringify(data.slice(0, 80))}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw malformed(url, `an event that is not a JSON object: ${JSON.stringify(data.slice(0, 80))}`);
  return parsed as Record<string, unknown>;
}

function serverError(url: string, event: Record<string, unknown>, data: string): ServerError {
  const error = (event as { error?: { message?: string } | string }).error;
  const said = typeof error === 'string' ? error : error?.message ?? data.slice(0, 200);
  return new ServerError('http', url, `The server at ${url} reported an error mid-reply: ${said}. Retry the turn; if it persists, check the server's log.`);
}

export function malformed(url: string, what: string): ServerError {
  return new ServerError('malformed', url, `The server at ${url} sent a malformed stream (${what}). Keel stored nothing of this reply; retry the turn, and check that the URL is an OpenAI-compatible server.`);
}
