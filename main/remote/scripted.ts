/**
 * A scripted reply in the server engine's own text: the assistant message as JSON,
 * `{"content": "...", "tool_calls": [{"name": "read", "arguments": {...}}]}` (ids optional; arguments
 * an object, or a string kept byte for byte, bad JSON included). Any other text is a plain answer.
 */
export interface ScriptedReply {
  content: string;
  calls: { id: string; name: string; arguments: string }[];
}

/** Writes a scripted reply (tests and benchmarks). */
export function scriptReply(content: string, calls: { name: string; arguments: unknown; id?: string }[] = []): string {
  return JSON.stringify({ content, tool_calls: calls.map((c) => ({ ...(c.id ? { id: c.id } : {}), name: c.name, arguments: c.arguments })) });
}

export function scriptedReply(text: string, request: number): ScriptedReply {
  let parsed: { content?: unknown; tool_calls?: unknown } | undefined;
  if (text.startsWith('{')) {
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      parsed = undefined;
    }
  }
  if (!parsed || typeof parsed.content !== 'string') return { content: text, calls: [] };
  const calls = Array.isArray(parsed.tool_calls) ? parsed.tool_calls as { id?: string; name: string; arguments: unknown }[] : [];
  return {
    content: parsed.content,
    calls: calls.map((c, k) => ({
      id: c.id ?? `call_${request}_${k}`,
      name: c.name,
      arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}),
    })),
  };
}
