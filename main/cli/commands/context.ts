import type { ContextView } from '../../core/context/types.js';
import { formatTable } from '../format.js';
import type { Writer } from '../io.js';
import type { Conversation } from './conversation.js';

/**
 * `keel context ID` (and `/context`): the next message's request by part — each part's tokens,
 * cached or new, and what its going would re-read — summing to the request's prompt tokens.
 * `--json`: the view as core/context/types.ts shapes it, with the session and its model.
 */
export async function showContext(c: Conversation, json: boolean, out: Writer): Promise<void> {
  const view = await c.agent.context();
  if (json) {
    out.write(`${JSON.stringify({ sessionId: c.session.id, model: c.engine.model, ...view }, null, 2)}\n`);
    return;
  }
  out.write(contextText(c.session.id, c.engine.model, view));
}

export function contextText(sessionId: number, model: string, view: ContextView): string {
  const estimate = view.exact ? '' : ' (estimated: the server cannot count tokens)';
  const head = `Session ${sessionId}, the next message's request on ${model}${estimate}:\n`
    + `${view.promptTokens} prompt tokens: ${view.cachedTokens} cached, ${view.newTokens} new (context ${view.contextSize}).\n`;
  const rows = view.parts.map((p) => [
    String(p.tokens), String(p.cachedTokens), String(p.newTokens), String(p.tokensRereadIfGone), `${p.label}${p.located ? '' : ' *'}`,
  ]);
  const table = formatTable(
    [{ title: 'tokens', right: true }, { title: 'cached', right: true }, { title: 'new', right: true }, { title: 're-read if gone', right: true }, { title: 'part' }],
    rows,
  );
  const notes = ['Each part holds its own text and the template\'s text just before it.'];
  if (view.parts.some((p) => !p.located)) notes.push('* not found as written (the template writes it otherwise): the part holds the template\'s text between its neighbours.');
  return `${head}${table}${notes.join('\n')}\n`;
}
