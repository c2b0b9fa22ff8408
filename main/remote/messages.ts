/**
 * A Conversation as the OpenAI Chat Completions API carries it, byte-stable: the same session gives
 * the same system message, the same `tools` array (keys always in this order) and every earlier
 * message exactly as it was sent. Only JSON.stringify of objects built here in a fixed order reach
 * the wire, so equal inputs are equal bytes.
 *
 * What the server engine generated is stored in the engine-neutral fields as JSON of its own:
 * a call's `raw` is `{"id","name","arguments"}` with the arguments string exactly as the server
 * streamed it (ids kept, bytes kept, bad JSON kept); a reply's `raw` is `{"reasoning_content"}`
 * where the server sent reasoning. A reply made by another engine (before a model switch) has no
 * such JSON: its calls get ids `call_NUMBER` and their arguments as JSON.
 */
import type { Conversation, ConversationCall, ConversationReply, ToolSpec } from '../core/engine/types.js';

export interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type WireMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; reasoning_content?: string; tool_calls?: WireToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface WireTool {
  type: 'function';
  function: { name: string; description: string; parameters: object };
}

/** A call as the server engine stores it in ConversationCall.raw. */
export interface StoredCall {
  id: string;
  name: string;
  arguments: string;
}

export function storedCall(c: StoredCall): string {
  return JSON.stringify({ id: c.id, name: c.name, arguments: c.arguments });
}

/** A reply's reasoning as the server engine stores it in ConversationReply.raw. */
export function storedReasoning(reasoning: string): string {
  return JSON.stringify({ reasoning_content: reasoning });
}

export function wireTools(tools: readonly ToolSpec[]): WireTool[] {
  return tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
}

export function wireMessages(c: Conversation): WireMessage[] {
  const out: WireMessage[] = [{ role: 'system', content: c.system }];
  for (const m of c.messages) {
    if (m.role === 'user') out.push({ role: 'user', content: m.text });
    else for (const reply of m.replies) out.push(...wireReply(reply));
  }
  return out;
}

function wireReply(reply: ConversationReply): WireMessage[] {
  const reasoning = readReasoning(reply.raw);
  const calls = reply.calls.map(wireCall);
  const assistant: WireMessage = {
    role: 'assistant', content: reply.text,
    ...(reasoning === undefined ? {} : { reasoning_content: reasoning }),
    ...(calls.length === 0 ? {} : { tool_calls: calls }),
  };
  return [assistant, ...reply.calls.map((call, i): WireMessage => ({ role: 'tool', tool_call_id: calls[i].id, content: call.result }))];
}

function wireCall(call: ConversationCall): WireToolCall {
  const stored = readStoredCall(call.raw);
  if (stored) return { id: stored.id, type: 'function', function: { name: stored.name, arguments: sendable(stored.arguments) } };
  return { id: `call_${call.number}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) } };
}

/**
 * Arguments that are not JSON (the model wrote them badly) go back as a JSON string holding them:
 * servers refuse a history with unparsable arguments (llama-server: HTTP 500), and the model still
 * sees what it wrote, the same bytes every request.
 */
function sendable(args: string): string {
  if (args.trim() === '') return args;
  try {
    JSON.parse(args);
    return args;
  } catch {
    return JSON.stringify(args);
  }
}

export function readStoredCall(raw: string): StoredCall | undefined {
  if (!raw.startsWith('{"id":')) return undefined;
  try {
    const p = JSON.parse(raw) as Partial<StoredCall>;
    if (typeof p.id === 'string' && typeof p.name === 'string' && typeof p.arguments === 'string') return { id: p.id, name: p.name, arguments: p.arguments };
  } catch {
    // another engine's text
  }
  return undefined;
}

function readReasoning(raw: string | undefined): string | undefined {
  if (!raw?.startsWith('{"reasoning_content":')) return undefined;
  try {
    const p = JSON.parse(raw) as { reasoning_content?: unknown };
    return typeof p.reasoning_content === 'string' ? p.reasoning_content : undefined;
  } catch {
    return undefined;
  }
}

/** Where a request's messages first differ from the previous request's, by message and byte. */
export interface BodyChange {
  /** Index in the messages array (0: the system message). */
  message: number;
  /** Byte offset inside that message's JSON (UTF-8). */
  byte: number;
}

/**
 * Compares the messages the previous request sent with this one's: every earlier message must be
 * the same bytes (the new request only appends). Undefined when nothing earlier changed; the tools
 * array changing is message -1.
 */
export function firstChange(before: readonly string[], beforeTools: string, now: readonly string[], nowTools: string): BodyChange | undefined {
  if (before.length === 0) return undefined;
  if (beforeTools !== nowTools) return { message: -1, byte: firstByte(beforeTools, nowTools) };
  for (let i = 0; i < before.length; i++) {
    if (i >= now.length) return { message: i, byte: 0 };
    if (before[i] !== now[i]) return { message: i, byte: firstByte(before[i], now[i]) };
  }
  return undefined;
}

function firstByte(a: string, b: string): number {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  return i;
}
