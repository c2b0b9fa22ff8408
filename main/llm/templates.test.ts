import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { engineFixture, type EngineFixture } from './fixture.js';
import { TEMPLATE_NAMES, templateModelOptions } from './testModel/templates.js';
import { nativeReplies } from './testModel/nativeReplies.js';
import { sessionWrapper } from './wrapper.js';

let f: EngineFixture | undefined;
afterEach(async () => {
  await f?.dispose();
  f = undefined;
});


/**
 * The wrapper each template gets, whatever the session's date (2031 here, never today): node-llama-cpp
 * compares its own wrappers with the template on today's clock, so a date fixed otherwise must not
 * change its choice, or a session would read its calls in another format the next day.
 */
const WRAPPERS: Record<string, string> = {
  qwen3: 'QwenChatWrapper', 'qwen2.5': 'QwenChatWrapper', 'llama-3.3': 'Llama3_1ChatWrapper', 'mistral-small-3.2': 'TemplateToolsWrapper',
  'devstral-small': 'JinjaTemplateChatWrapper', 'gpt-oss': 'HarmonyChatWrapper', 'gemma-2': 'GemmaChatWrapper', 'granite-3.3': 'JinjaTemplateChatWrapper',
};

describe('the same scripted session on a model of each shared template', { timeout: 180_000 }, () => {
  for (const name of TEMPLATE_NAMES) {
    it(name, async () => {
      const today = new Date();
      f = await engineFixture({ model: templateModelOptions(name), files: { 'a.txt': 'alpha\nbeta\n' }, now: new Date('2031-03-04T10:00:00') });
      expect(sessionWrapper(f.model.model, f.agent.session.promptDate).constructor.name).toBe(WRAPPERS[name]);
      const tools = f.syntax().prefix !== '';
      // Replies as the template's own wrapper renders a model turn: written by it, read back by Keel.
      const params = { type: 'object', properties: {} } as const;
      const write = nativeReplies(f.model.model, sessionWrapper(f.model.model, f.agent.session.promptDate), { read: { params }, edit: { params } });
      const call = (name: string, args: unknown) => (tools ? write({ text: '', call: { name, args } }) : 'No tools here.');
      f.replies.push(call('read', { path: 'a.txt' }), write({ text: 'It says alpha and beta.' }));
      expect(await f.agent.send('What is in a.txt?')).toBe(tools ? 'It says alpha and beta.' : 'No tools here.');
      f.setNow(new Date('2031-03-05T08:00:00'));
      f.replies.push(call('edit', { path: 'a.txt', old_string: 'beta', new_string: 'gamma' }), write({ text: 'Changed.' }));
      await f.agent.send('Change beta to gamma.');

      const prompt = f.agent.promptText();
      // No clock reaches the template: only the date fixed with the system prompt, and notes.
      // (Whole dates only: "December 2" is in Llama's "Cutting Knowledge Date: December 2023".)
      for (const real of [today.toISOString().slice(0, 10), today.toLocaleString('en-US', { month: 'long' }) + ' ' + today.getDate()]) {
        expect(prompt).not.toMatch(new RegExp(`${real}(?!\\d)`));
      }
      expect(prompt).toContain("Today's date is 2031-03-05.");
      if (tools) {
        expect(fs.readFileSync(path.join(f.root, 'a.txt'), 'utf8')).toBe('alpha\ngamma\n');
        // The result reaches the model as its exact text, not JSON-escaped into one line.
        expect(prompt).toMatch(/\[#0001 a\.txt lines 1-2 of 2 sha [0-9a-f]{8}\]\n1: alpha\n2: beta/);
      }
      const rows = f.agent.requests();
      expect(new Set(rows.map((r) => r.systemSha)).size).toBe(1);
      // Replies without reasoning: only Mistral Small 3.2's template rewrites earlier text here (its
      // tool list moves before the newest message); every other request reuses all the previous one
      // left. harmony.test.ts has gpt-oss dropping analysis.
      const losses = rows.filter((r) => r.cause !== undefined || r.reusedTokens < r.cachedBefore);
      expect(losses.map((r) => [r.id, r.cause])).toEqual(name === 'mistral-small-3.2' ? [[3, 'template re-rendered earlier text']] : []);
    });
  }
});
