import type { Conversation, Engine } from '../engine/types.js';
import { locate, type Span } from './locate.js';
import { outline } from './outline.js';
import type { ContextPart, ContextView } from './types.js';

export type { ContextPart, ContextView } from './types.js';

/**
 * The request `conversation` would make now, its tokens by part (docs/decisions.md "The context
 * view"): the engine's own tokens (Engine.promptMap), each given to the part whose text it reads —
 * the template's text to the part after it — so the parts sum exactly to the prompt's tokens, the
 * figure the request reports. Each part's tokens are cached up to where the request would stop
 * taking them from the cache.
 */
export async function contextView(engine: Engine, conversation: Conversation): Promise<ContextView> {
  const map = await engine.promptMap(conversation);
  const pieces = outline(conversation);
  const { spans, found } = locate(map.text, pieces, await toolSpan(engine, conversation, map.text));
  const tokens = countTokens(map.ends, spans);

  // In the prompt's order: by where each part begins; a part with no tokens right after the one before it in the conversation.
  let key = 0;
  const order = pieces.map((_, i) => {
    if (tokens[i] > 0) key = spans[i].from;
    return { i, key };
  }).sort((a, b) => a.key - b.key || a.i - b.i);

  const total = map.ends.length;
  let first = 0;
  const parts = order.map(({ i }): ContextPart => {
    const { kind, label, turn, result, tool, texts } = pieces[i];
    const n = tokens[i];
    const cached = Math.max(0, Math.min(n, map.cached - first));
    first += n;
    return {
      kind, label, ...(turn !== undefined && { turn }), ...(result !== undefined && { result }), ...(tool !== undefined && { tool }), tokens: n, cachedTokens: cached, newTokens: n - cached, tokensRereadIfGone: total - first,
      // A part with no text of its own (a reply of calls alone) has nothing to find.
      located: found[i] || (kind !== 'tools' && texts.length === 0),
    };
  });
  const last = conversation.messages.at(-1);
  return {
    request: last?.role === 'user' && last.sections?.some((s) => s.kind === 'next') ? 'next message' : 'conversation',
    promptTokens: total, cachedTokens: Math.min(map.cached, total), newTokens: total - Math.min(map.cached, total),
    contextSize: engine.contextSize, exact: map.exact, parts,
  };
}

/**
 * Each piece's tokens: a token goes to the piece whose span holds its first character (a token that
 * reads no character, to the piece where it stands). The spans cover the text, so every token is counted once.
 */
function countTokens(ends: readonly number[], spans: readonly Span[]): number[] {
  const counts = spans.map(() => 0);
  const cover = spans.map((s, i) => ({ ...s, i })).filter((s) => s.to > s.from).sort((a, b) => a.from - b.from);
  const end = ends.at(-1) ?? 0;
  let k = 0;
  for (let t = 0; t < ends.length; t++) {
    const start = t === 0 ? 0 : ends[t - 1];
    while (k + 1 < cover.length && cover[k].to <= start) k++;
    const owner = cover[k];
    if (!owner || start < owner.from || (start >= owner.to && start < end)) throw new Error(`context view: token ${t} at ${start} is in no part`);
    counts[owner.i]++;
  }
  return counts;
}

/** A stand-in message for the tool list's probe: where the tools go is all it shows. */
const PROBE = '\u2400';

/**
 * Where the tool list is in the prompt's text: the text the template renders for the tools, found
 * by rendering a one-message conversation with the tools and without them (what differs), then
 * looked for in the prompt; where that text is not one block (a template that changes more than
 * the list) or is not found, from the first tool's description to the last's.
 */
async function toolSpan(engine: Engine, c: Conversation, text: string): Promise<Span | undefined> {
  if (c.tools.length === 0) return undefined;
  const probe = (tools: Conversation['tools']) => engine.promptMap({ ...c, tools, messages: [{ role: 'user', text: PROBE }] });
  const [withTools, without] = [(await probe(c.tools)).text, (await probe([])).text];
  let head = 0;
  while (head < withTools.length && head < without.length && withTools[head] === without[head]) head++;
  let tail = 0;
  while (tail < withTools.length - head && tail < without.length - head && withTools.at(-1 - tail) === without.at(-1 - tail)) tail++;
  const block = withTools.slice(head, withTools.length - tail);
  const system = c.system.trim();
  const at = block === '' || (system !== '' && block.includes(system)) ? -1 : text.indexOf(block);
  if (at >= 0) return { from: at, to: at + block.length };
  const from = firstOf(text, c.tools[0].description, 0);
  const lastTool = c.tools[c.tools.length - 1].description;
  const last = from === undefined ? undefined : firstOf(text, lastTool, from.from);
  return from && last ? { from: from.from, to: last.to } : undefined;
}

function firstOf(text: string, description: string, from: number): Span | undefined {
  for (const form of [description, JSON.stringify(description).slice(1, -1)]) {
    const at = form === '' ? -1 : text.indexOf(form, from);
    if (at >= 0) return { from: at, to: at + form.length };
  }
  return undefined;
}
