import { describe, expect, it } from 'vitest';
import type { Conversation } from '../core/engine/types.js';
import { ServerError } from './errors.js';
import { baseUrl } from './http.js';
import { firstChange, readStoredCall, storedCall, wireMessages, wireTools } from './messages.js';
import { scriptedReply, scriptReply } from './scripted.js';
import { sseEvents } from './sse.js';

const conversation = (extra: Conversation['messages'] = []): Conversation => ({
  system: 'You are Keel.',
  tools: [{ name: 'read', description: 'Reads a file.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }],
  promptDate: '2026-12-01',
  messages: [
    { role: 'user', text: 'read a.txt' },
    {
      role: 'model', replies: [{
        text: 'Reading.', raw: JSON.stringify({ reasoning_content: 'think' }),
        calls: [{ name: 'read', args: { path: 'a.txt' }, raw: storedCall({ id: 'abc', name: 'read', arguments: '{"path":  "a.txt"}' }), number: 1, result: '[#0001]\nhello' }],
      }],
    },
    ...extra,
  ],
});

describe('request bodies', () => {
  it('carry calls and results with their ids, the arguments byte for byte and the reasoning', () => {
    const m = wireMessages(conversation());
    expect(m).toEqual([
      { role: 'system', content: 'You are Keel.' },
      { role: 'user', content: 'read a.txt' },
      { role: 'assistant', content: 'Reading.', reasoning_content: 'think', tool_calls: [{ id: 'abc', type: 'function', function: { name: 'read', arguments: '{"path":  "a.txt"}' } }] },
      { role: 'tool', tool_call_id: 'abc', content: '[#0001]\nhello' },
    ]);
    expect(JSON.stringify(wireTools(conversation().tools))).toBe(
      '[{"type":"function","function":{"name":"read","description":"Reads a file.","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}]');
  });

  it('give a call another engine made an id from its number and its arguments as JSON', () => {
    const c = conversation();
    const reply = (c.messages[1] as Extract<Conversation['messages'][number], { role: 'model' }>).replies[0];
    reply.calls[0].raw = '<tool_call>\n{"name": "read"}\n</tool_call>';
    reply.raw = undefined;
    expect(wireMessages(c)[2]).toEqual({ role: 'assistant', content: 'Reading.', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"path":"a.txt"}' } }] });
    expect(readStoredCall(reply.calls[0].raw)).toBeUndefined();
  });

  it('name the first earlier message and byte that changed, and nothing when the request only appends', () => {
    const before = wireMessages(conversation()).map((m) => JSON.stringify(m));
    const tools = JSON.stringify(wireTools(conversation().tools));
    const appended = wireMessages(conversation([{ role: 'user', text: 'thanks' }])).map((m) => JSON.stringify(m));
    expect(firstChange(before, tools, appended, tools)).toBeUndefined();
    const changed = conversation();
    changed.messages[0] = { role: 'user', text: 'read b.txt' };
    const now = wireMessages(changed).map((m) => JSON.stringify(m));
    expect(firstChange(before, tools, now, tools)).toEqual({ message: 1, byte: '{"role":"user","content":"read '.length });
    expect(firstChange(before, tools, before.slice(0, 2), tools)).toEqual({ message: 2, byte: 0 });
    expect(firstChange(before, tools, before, '[]')).toEqual({ message: -1, byte: 1 });
  });
});

describe('scripted replies', () => {
  it('read the JSON the helper writes, with ids given or numbered, and plain text as an answer', () => {
    expect(scriptedReply(scriptReply('Reading.', [{ name: 'read', arguments: { path: 'a' } }]), 3)).toEqual({
      content: 'Reading.', calls: [{ id: 'call_3_0', name: 'read', arguments: '{"path":"a"}' }],
    });
    expect(scriptedReply(scriptReply('', [{ name: 'read', arguments: '{"path": ', id: 'x' }]), 1).calls).toEqual([{ id: 'x', name: 'read', arguments: '{"path": ' }]);
    expect(scriptedReply('Done.', 1)).toEqual({ content: 'Done.', calls: [] });
  });
});

describe('the stream and the URL', () => {
  const stream = (text: string) => new Response(text).body!;
  it('reads events to [DONE], ignoring comments, and refuses a line that is not JSON, naming the URL', async () => {
    const events = [];
    for await (const e of sseEvents(stream(': ping\n\ndata: {"a":1}\r\n\ndata: [DONE]\n\ndata: {"b":2}\n\n'), 'http://x', () => {})) events.push(e);
    expect(events).toEqual([{ a: 1 }]);
    const bad = async () => {
      for await (const e of sseEvents(stream('data: {"a":\n\n'), 'http://x:1', () => {})) void e;
    };
    await expect(bad()).rejects.toThrow(/http:\/\/x:1 sent a malformed stream/);
  });

  it('frames events across chunks, ends without a last blank line, and reads a server error or a foreign line as errors', async () => {
    const chunked = (...parts: string[]) => new ReadableStream<Uint8Array>({
      start(c) { for (const p of parts) c.enqueue(new TextEncoder().encode(p)); c.close(); },
    });
    const read = async (body: ReadableStream<Uint8Array>) => {
      const events = [];
      for await (const e of sseEvents(body, 'http://x:2', () => {})) events.push(e);
      return events;
    };
    expect(await read(chunked('data: {"a"', ':1}\n', '\nid: 7\ndata: {"b":2}'))).toEqual([{ a: 1 }, { b: 2 }]);
    await expect(read(chunked('data: {"a":1}\n\nerror: {"code":500,"message":"slot gone"}\n\n'))).rejects
      .toThrow('The server at http://x:2 reported an error mid-reply: {"code":500,"message":"slot gone"}.');
    await expect(read(chunked('data: {"error":{"message":"out of memory"}}\n\n'))).rejects.toThrow('reported an error mid-reply: out of memory.');
    await expect(read(chunked('<html>502 Bad Gateway</html>\n\n'))).rejects.toThrow(/malformed stream \(a line that is not a Server-Sent Event: "<html>502 Bad Gateway<\/html>"\)/);
    await expect(read(chunked('data: [1,2]\n\n'))).rejects.toThrow(/an event that is not a JSON object/);
  });

  it('takes a base address with or without /v1 and refuses what is not http(s)', () => {
    expect(baseUrl('http://127.0.0.1:8080/v1/')).toBe('http://127.0.0.1:8080');
    expect(baseUrl('https://host/api')).toBe('https://host/api');
    expect(() => baseUrl('ftp://host')).toThrow(ServerError);
    expect(() => baseUrl('localhost:8080')).toThrow(/not an http\(s\) URL|not a URL/);
  });
});
