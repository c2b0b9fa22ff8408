import { LlamaText, SpecialTokensText } from 'node-llama-cpp';
import { afterEach, describe, expect, it } from 'vitest';
import { engineFixture, type EngineFixture } from '../engineFixture.js';
import { nativeReplies } from './testModel/nativeReplies.js';
import { templateModelOptions } from './testModel/templates.js';
import { thoughtItems, withoutThoughts, type ThoughtMarkers } from './thoughts.js';
import { sessionWrapper } from './wrapper.js';

const qwen: ThoughtMarkers = {
  prefix: '<think>\n',
  suffix: '\n</think>',
  text: { prefix: LlamaText(new SpecialTokensText('<think>\n')), suffix: LlamaText(new SpecialTokensText('\n</think>')) },
};

describe('reasoning between thought markers', () => {
  it('leaves the words, without the reasoning or the whitespace after it', () => {
    expect(withoutThoughts('<think>\nLet me see.\n</think>\n\nIt is 4.', qwen)).toBe('It is 4.');
    expect(withoutThoughts('<think>\nStill thinking', qwen)).toBe('');
    expect(withoutThoughts('No reasoning.', qwen)).toBe('No reasoning.');
  });

  it('goes back as a thought segment that renders its exact text, then the words', () => {
    const [thought, words] = thoughtItems('<think>\nLet me see.\n</think>\n\nIt is 4.', qwen);
    expect(words).toBe('It is 4.');
    expect(thought).toMatchObject({ type: 'segment', segmentType: 'thought', text: 'Let me see.', ended: true });
    expect(thought !== undefined && typeof thought === 'object' && 'raw' in thought && LlamaText.fromJSON(thought.raw!).toString())
      .toBe('<think>\nLet me see.\n</think>\n\n');
  });
});

let f: EngineFixture | undefined;
afterEach(async () => {
  await f?.dispose();
  f = undefined;
});

describe('a Qwen3 session on a model with its template', { timeout: 120_000 }, () => {
  it('keeps reasoning within the turn, and loses only what the template drops once the person speaks again', async () => {
    f = await engineFixture({ model: templateModelOptions('qwen3'), files: { 'a.txt': 'alpha\nbeta\n' } });
    const params = { type: 'object', properties: {} } as const;
    const write = nativeReplies(f.model.model, sessionWrapper(f.model.model, f.agent.session.promptDate), { read: { params } });
    f.replies.push(`<think>\nI should read a.txt.\n</think>\n\n${write({ text: '', call: { name: 'read', args: { path: 'a.txt' } } })}`,
      '<think>\nTwo lines.\n</think>\n\nIt says alpha and beta.');
    expect(await f.agent.send('What is in a.txt?')).toBe('It says alpha and beta.');
    expect(f.events.flatMap((e) => (e.type === 'text' ? [e.delta] : [])).join('')).toBe('It says alpha and beta.');
    expect(f.events.some((e) => e.type === 'tool')).toBe(true);
    let rows = f.agent.requests();
    expect(rows[1].reusedTokens).toBe(rows[1].cachedBefore);

    f.replies.push('Fine.');
    await f.agent.send('Thanks.');
    rows = f.agent.requests();
    expect(rows.map((r) => r.cause)).toEqual([undefined, undefined, 'template re-rendered earlier text']);
    expect(f.agent.promptText()).not.toContain('I should read a.txt.');
    expect(f.agent.promptText()).toContain('It says alpha and beta.');
  });
});
