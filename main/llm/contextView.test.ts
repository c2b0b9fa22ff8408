import { afterEach, describe, expect, it } from 'vitest';
import { contextView, type ContextView } from '../core/context/contextView.js';
import type { Conversation } from '../core/engine/types.js';
import { formatId } from '../core/hygiene/ids.js';
import type { RequestRow } from '../core/state/types.js';
import { engineFixture, type EngineFixture } from '../engineFixture.js';
import { generationOpensThought } from './generationPrompt.js';
import { tokenTexts } from './promptMap.js';
import { nativeReplies } from './testModel/nativeReplies.js';
import { templateModelOptions, type TemplateName } from './testModel/templates.js';
import { sessionWrapper } from './wrapper.js';

let f: EngineFixture | undefined;
afterEach(async () => {
  await f?.dispose();
  f = undefined;
});

/** Watches the engine: the context view of each request's own conversation, taken just before it is sent. */
function watchRequests(fx: EngineFixture): { conversation: Conversation; view: ContextView }[] {
  const engine = fx.agent.engine;
  const generate = engine.generate.bind(engine);
  const seen: { conversation: Conversation; view: ContextView }[] = [];
  engine.generate = async (conversation, o) => {
    seen.push({ conversation, view: await contextView(engine, conversation) });
    return generate(conversation, o);
  };
  return seen;
}

const sum = (view: ContextView, key: 'tokens' | 'cachedTokens' | 'newTokens') => view.parts.reduce((n, p) => n + p[key], 0);
const resultIds = (c: Conversation) => c.messages.flatMap((m) => (m.role === 'model' ? m.replies.flatMap((r) => r.calls.map((call) => call.number)) : []));

/** Every figure of a view agrees with itself: parts sum to the prompt, cached then new, each part's re-read is what follows it. */
function consistent(view: ContextView): void {
  expect(sum(view, 'tokens')).toBe(view.promptTokens);
  expect(sum(view, 'cachedTokens')).toBe(view.cachedTokens);
  expect(sum(view, 'newTokens')).toBe(view.newTokens);
  let before = 0;
  for (const part of view.parts) {
    // The cache is a prefix: a part is cached only where every part before it is.
    expect(part.cachedTokens).toBe(Math.max(0, Math.min(part.tokens, view.cachedTokens - before)));
    before += part.tokens;
    expect(part.tokensRereadIfGone).toBe(view.promptTokens - before);
  }
}

/** The scripted session, in the template's own call format: two reads (the second a stub), an edit, and a plain turn. */
async function scriptedSession(name: TemplateName) {
  f = await engineFixture({ model: templateModelOptions(name), files: { 'a.txt': 'alpha\nbeta\n' } });
  const seen = watchRequests(f);
  const wrapper = sessionWrapper(f.model.model, f.agent.session.promptDate);
  const params = { type: 'object', properties: {} } as const;
  const write = nativeReplies(f.model.model, wrapper, { read: { params }, edit: { params } });
  const thought = generationOpensThought(wrapper) ? 'Let me see.' : undefined;
  const call = (tool: string, args: unknown) => write({ thought, text: '', call: { name: tool, args } });
  const answer = (text: string) => write({ thought, text });
  f.replies.push(call('read', { path: 'a.txt' }), call('read', { path: 'a.txt' }), answer('It says alpha and beta.'));
  await f.agent.send('What is in a.txt? (ünïcode ✓ 🙂)');
  f.replies.push(call('edit', { path: 'a.txt', old_string: 'beta', new_string: 'gamma' }), answer('Changed.'));
  await f.agent.send('Change beta to gamma.');
  f.replies.push(answer('Fine.'));
  await f.agent.send('Thanks.');
  return { fx: f, seen };
}

describe('the context view on a real engine', { timeout: 180_000 }, () => {
  // A ChatML template (tools after the system prompt), Llama 3.3 (tools before it) and Mistral Small 3.2 (tools before the newest message).
  for (const name of ['qwen2.5', 'llama-3.3', 'mistral-small-3.2'] as const) {
    it(`${name}: every request's parts sum to its prompt tokens, cached as the request reused, each result found by id`, async () => {
      const { fx, seen } = await scriptedSession(name);
      const rows: RequestRow[] = fx.agent.requests();
      expect(rows).toHaveLength(6);
      expect(seen).toHaveLength(rows.length);
      for (const [i, { conversation, view }] of seen.entries()) {
        consistent(view);
        expect(view.request).toBe('conversation');
        expect(view.promptTokens).toBe(rows[i].promptTokens);
        expect(view.cachedTokens).toBe(rows[i].reusedTokens);
        const results = view.parts.filter((p) => p.kind === 'result');
        expect(results.map((p) => p.result)).toEqual(resultIds(conversation));
        for (const part of results) {
          expect(part.located).toBe(true);
          expect(part.label).toContain(formatId(part.result!));
          // The result's own tokens, and the few of the template's text before it.
          const own = fx.store.getResult(fx.agent.session.id, part.result!)!.tokens ?? NaN;
          expect(part.tokens).toBeGreaterThanOrEqual(own - 1);
          expect(part.tokens).toBeLessThan(own + 16);
        }
        for (const kind of ['system', 'tools'] as const) expect(view.parts.filter((p) => p.kind === kind && p.located)).toHaveLength(1);
        expect(view.parts.filter((p) => p.kind === 'message').map((p) => p.turn)).toEqual(
          conversation.messages.flatMap((m) => (m.role === 'user' && m.turn !== undefined ? [m.turn] : [])),
        );
      }

      // The next message's request: everything but the message itself is in the cache, and the message's request reuses what the view said.
      const next = await fx.agent.context();
      consistent(next);
      expect(next.request).toBe('next message');
      expect(next.promptTokens).toBe(await fx.agent.engine.promptTokens(fx.agent.nextConversation()));
      const last = next.parts.at(-1)!;
      expect(last.kind).toBe('next');
      if (name === 'mistral-small-3.2') {
        // Its template moves the tool list before the newest message: the view shows the list read anew there.
        const tools = next.parts.at(-2)!;
        expect(tools.kind).toBe('tools');
        expect(tools.newTokens).toBe(tools.tokens);
        expect(next.cachedTokens).toBeLessThan(next.promptTokens - last.tokens - tools.tokens);
      } else {
        expect(next.parts.slice(0, -1).every((p) => p.cachedTokens === p.tokens)).toBe(true);
        expect(next.cachedTokens).toBeGreaterThanOrEqual(next.promptTokens - last.tokens);
      }
      fx.replies.push('Sure.');
      await fx.agent.send('One more thing.');
      expect(fx.agent.requests().at(-1)!.reusedTokens).toBe(next.cachedTokens);
    });
  }

  it('after an undo, the cache holds the turns before the one taken back and what follows is new', async () => {
    const { fx } = await scriptedSession('qwen2.5');
    const before = await fx.agent.context();
    const third = before.parts.findIndex((p) => p.kind === 'message' && p.turn === 3);
    const start = before.promptTokens - before.parts[third].tokensRereadIfGone - before.parts[third].tokens;
    fx.agent.undo();
    const after = await fx.agent.context();
    consistent(after);
    // What removing turn 3 costs, as the view said before: the cache keeps the tokens before it (and the template's text the next message shares with it).
    expect(after.cachedTokens).toBeGreaterThanOrEqual(start);
    expect(after.cachedTokens).toBeLessThan(start + before.parts[third].tokens);
    expect(after.parts.some((p) => p.turn === 3)).toBe(false);
  });

  it('reads byte tokens of a character as one: the pieces add up to the tokens read at once', async () => {
    f = await engineFixture();
    const model = f.model.model;
    const tokens = model.tokenize('café ✓ 🙂 \u2400 done', false);
    const { text, ends } = tokenTexts(tokens, model);
    expect(text).toBe(model.detokenize(tokens, true));
    expect(ends).toHaveLength(tokens.length);
    expect(ends.at(-1)).toBe(text.length);
    expect(ends.every((end, i) => i === 0 || end >= ends[i - 1])).toBe(true);
    // The test model spells 🙂 in byte tokens: some tokens end where they begin.
    expect(ends.some((end, i) => i > 0 && end === ends[i - 1])).toBe(true);
  });
});
