import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, expect, it } from 'vitest';
import type { ContextView } from '../core/context/types.js';
import { SqliteStore } from '../db/store.js';
import { databasePath } from '../keelHome.js';
import type { LlamaEngine } from '../llm/engine.js';
import { writeTestModel } from '../llm/testModel/makeTestModel.js';
import { formatCall } from '../llm/toolCalls.js';
import { cli, cliTyped, tempKeelHome } from '../../test/cliRun.js';
import { newConversation } from './commands/conversation.js';

let tmp: string;
let root: string;
let model: string;

beforeEach((ctx) => {
  tmp = tempKeelHome(ctx, 'keel-context-');
  root = path.join(tmp, 'ws');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'a.txt'), 'alpha\nbeta\n');
  model = path.join(tmp, 'tiny.gguf');
  writeTestModel(model);
});


const LOCAL = ['--threads', '1', '--context', '8192'];

it('keel context ID shows the next request of a real session by part, summing to its prompt tokens, as text and as JSON', { timeout: 120_000 }, async () => {
  const store = new SqliteStore(databasePath());
  let id: number;
  let expected: number;
  try {
    // A session with two tool results, made as `keel chat` makes one, its cache saved at the end.
    const replies: string[] = [];
    const quiet = { write: () => {} };
    const c = await newConversation(store, {
      workspace: root, model, kind: 'agent', mode: 'auto', local: { threads: 1, contextSize: 8192 }, script: { next: () => replies.shift() },
    }, { out: quiet, err: quiet });
    const syntax = (c.agent.engine as LlamaEngine).syntax(c.session.promptDate);
    replies.push(formatCall(syntax, 'read', { path: 'a.txt' }), formatCall(syntax, 'list', {}), 'It holds alpha and beta.');
    await c.agent.send('What is in a.txt?');
    id = c.session.id;
    expected = await c.agent.engine.promptTokens(c.agent.nextConversation());
    await c.close();
  } finally {
    store.close();
  }

  const json = await cli('context', String(id), ...LOCAL, '--json');
  expect(json.err).not.toContain('unexpected error');
  expect(json.code).toBe(0);
  const view = JSON.parse(json.out) as ContextView & { sessionId: number; model: string };
  expect(view).toMatchObject({ sessionId: id, model, request: 'next message', exact: true, contextSize: 8192 });
  // Exactly the next message's prompt tokens, part by part.
  expect(view.promptTokens).toBe(expected);
  expect(view.parts.reduce((n, p) => n + p.tokens, 0)).toBe(view.promptTokens);
  expect(view.parts.reduce((n, p) => n + p.cachedTokens, 0)).toBe(view.cachedTokens);
  expect(view.parts.map((p) => p.kind)).toEqual(['system', 'tools', 'message', 'notes', 'reply', 'call', 'result', 'reply', 'call', 'result', 'reply', 'next']);
  expect(view.parts.filter((p) => p.kind === 'result').map((p) => [p.result, p.tool, p.turn])).toEqual([[1, 'read', 1], [2, 'list', 1]]);
  // Resumed with its saved cache: all of it but the next message is cached.
  expect(json.err).toContain(`Session ${id} resumed with its saved cache.`);
  expect(view.parts.slice(0, -1).every((p) => p.cachedTokens === p.tokens)).toBe(true);
  expect(view.parts.at(-1)!.cachedTokens).toBeLessThan(view.parts.at(-1)!.tokens);

  const text = await cli('context', String(id), ...LOCAL);
  expect(text.code).toBe(0);
  expect(text.out).toContain(`Session ${id}, the next message's request on ${model}:\n`);
  expect(text.out).toContain(`${view.promptTokens} prompt tokens: ${view.cachedTokens} cached, ${view.newTokens} new (context 8192).\n`);
  const system = view.parts[0];
  expect(text.out).toMatch(new RegExp(`\\n +${system.tokens} +${system.cachedTokens} +0 +${system.tokensRereadIfGone}  system prompt\\n`));
  expect(text.out).toContain('turn 1 result #0001 (read)');
  expect(text.out).toContain('turn 1 result #0002 (list)');

  // In `keel chat`, /context prints the same view.
  const chat = await cliTyped(['/context', '/quit'], 'chat', String(id), ...LOCAL);
  expect(chat.code).toBe(0);
  expect(chat.out).toContain(`${view.promptTokens} prompt tokens: ${view.cachedTokens} cached, ${view.newTokens} new (context 8192).\n`);
  expect(chat.out).toContain('turn 1 result #0002 (list)');

  const missing = await cli('context', '99', ...LOCAL);
  expect(missing.code).toBe(1);
  expect(missing.err).toContain('99');
});
