/**
 * Checkpoints on the real engine (node-llama-cpp) with generated models of a hybrid and a
 * sliding-window architecture: where Keel takes them, that an undo, a regenerate and the next
 * message after a reasoning reply restore one instead of re-reading, that a saved state is the one
 * the next message starts from, and that a plain transformer takes none. Which model needs them is
 * node-llama-cpp's verdict from the GGUF (never a name): the assertions read it from the sequence.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestRow } from '../core/state/types.js';
import { engineFixture, type EngineFixture } from '../engineFixture.js';
import type { LlamaEngine } from './engine.js';
import { openEngine } from '../openEngine.js';
import { formatCall } from './toolCalls.js';
import { architectureModel } from './testModel/architectureModels.js';
import type { TestModelOptions } from './testModel/makeTestModel.js';

let f: EngineFixture | undefined;
afterEach(async () => {
  await f?.dispose();
  f = undefined;
});

const engine = (fx: EngineFixture) => fx.agent.engine as LlamaEngine;
const last = (fx: EngineFixture): RequestRow => fx.agent.requests().at(-1)!;
const call = (fx: EngineFixture, name: string, args: unknown) => formatCall(fx.syntax(), name, args);

/** A turn of two requests: a read, then an answer. */
async function readTurn(fx: EngineFixture, words: string, answer: string): Promise<void> {
  fx.replies.push(call(fx, 'read', { path: 'a.txt' }), answer);
  await fx.agent.send(words);
}

const HYBRID: TestModelOptions = { architecture: 'qwen35' };
const WINDOW: TestModelOptions = { architecture: 'gemma4' };

describe('checkpoints where the next request can depart', { timeout: 180_000 }, () => {
  it('a hybrid model keeps a checkpoint before each turn\'s message and at each prompt\'s end', async () => {
    f = await engineFixture({ model: HYBRID, files: { 'a.txt': 'alpha\n'.repeat(40) } });
    const e = engine(f);
    expect(e.checkpoints.needed).toBe(true);
    await readTurn(f, 'Read a.txt.', 'It says alpha.');
    const rows = f.agent.requests();
    const kept = e.checkpoints.list();
    // One before the message's text, one at the end of each of the turn's two prompts.
    expect(kept.map((c) => c.kind)).toEqual(['turn', 'prompt', 'prompt']);
    expect(kept.map((c) => c.position).slice(1)).toEqual(rows.map((r) => r.promptTokens - 2));
    expect(kept[0]!.position).toBeLessThan(kept[1]!.position);
    expect(kept.every((c) => c.bytes > 0)).toBe(true);
  });

  it('an undo and a new message restore the turn\'s checkpoint, re-reading only the new message', async () => {
    f = await engineFixture({ model: HYBRID, files: { 'a.txt': 'alpha\n'.repeat(200) } });
    await readTurn(f, 'Read a.txt.', 'It says alpha.');
    await readTurn(f, 'Read it again, please.', 'Still alpha.');
    const turnStart = engine(f).checkpoints.list().filter((c) => c.kind === 'turn').at(-1)!.position;
    f.agent.undo();
    f.replies.push('Nothing to do.');
    await f.agent.send('Something else.');
    const row = last(f);
    expect(row.engine?.checkpoint).toEqual({ restoredAt: turnStart, reread: expect.any(Number) });
    // Everything up to the turn's message came from the checkpoint: the new tokens are the message and what follows it.
    expect(row.newTokens).toBeLessThan(40);
    expect(row.reusedTokens).toBeGreaterThan(turnStart - 5);
  });

  it('a regenerate restores the end of the prompt it answers: one token evaluated', async () => {
    f = await engineFixture({ model: HYBRID });
    f.replies.push('First answer.');
    await f.agent.send('Say something.');
    const prompt = last(f).promptTokens;
    f.replies.push('Second answer.');
    await f.agent.regenerate();
    const row = last(f);
    expect(row.promptTokens).toBe(prompt);
    expect(row.engine?.checkpoint).toEqual({ restoredAt: prompt - 2, reread: 0 });
    expect(row.newTokens).toBe(1);
  });

  it('the next message after a reasoning reply restores the checkpoint where it departs (Qwen3.5 drops the reasoning)', async () => {
    f = await engineFixture({ model: architectureModel('qwen35') });
    f.replies.push('<think>\nThe person wants one word, so one word it is.\n</think>\n\nWord.');
    await f.agent.send('Say one word.');
    const answered = last(f).promptTokens;
    f.replies.push('<think>\nAnother.\n</think>\n\nAgain.');
    await f.agent.send('Once more.');
    const row = last(f);
    // The finished turn is written without the generation prompt's `<think>`: the next prompt departs
    // just before the end of the one answered, where that request took its checkpoint.
    const departs = row.firstDiff!;
    expect(departs).toBeLessThan(answered);
    expect(departs).toBeGreaterThan(answered - 5);
    expect(row.engine?.checkpoint).toEqual({ restoredAt: departs - 1, reread: 0 });
    expect(row.newTokens).toBe(row.promptTokens - departs);
  });

  it('after a saved state is read in a new process\'s place, the next message re-reads only itself', async () => {
    f = await engineFixture({ model: HYBRID, files: { 'a.txt': 'alpha\n'.repeat(200) } });
    await readTurn(f, 'Read a.txt.', 'It says alpha.');
    const before = last(f);
    await f.agent.saveState();
    await f.reopen(true);
    f.replies.push('Done.');
    await f.agent.send('Thanks.');
    const row = last(f);
    expect(row.reusedTokens).toBeGreaterThanOrEqual(before.promptTokens);
    expect(row.newTokens).toBeLessThan(30);
  });

  it('without the full window cache, a sliding-window model keeps checkpoints too; with it, none', async () => {
    f = await engineFixture({ model: WINDOW, local: { windowCache: 'checkpoints' } });
    expect(engine(f).checkpoints.needed).toBe(true);
    f.replies.push('An answer.');
    await f.agent.send('Hello.');
    expect(engine(f).checkpoints.list().length).toBeGreaterThan(0);
    await f.dispose();
    f = await engineFixture({ model: WINDOW, local: { windowCache: 'full' } });
    expect(engine(f).checkpoints.needed).toBe(false);
  });

  it('a session switched from a plain model to a hybrid one and back keeps its history and its checkpoints follow the model', async () => {
    f = await engineFixture({ files: { 'a.txt': 'alpha\n'.repeat(40) } });
    await readTurn(f, 'Read a.txt.', 'It says alpha.');
    expect(engine(f).checkpoints.needed).toBe(false);
    await f.agent.switchEngine(openEngine({ kind: 'local', model: await f.newModel(HYBRID, 'hybrid.gguf') }));
    expect(engine(f).checkpoints.needed).toBe(true);
    await readTurn(f, 'Again, please.', 'Still alpha.');
    expect(engine(f).checkpoints.list().map((c) => c.kind)).toEqual(['turn', 'prompt', 'prompt']);
    f.agent.undo();
    f.replies.push('Fine.');
    await f.agent.send('Something else.');
    expect(last(f).engine?.checkpoint?.restoredAt).toBeGreaterThan(0);
    await f.agent.switchEngine(openEngine({ kind: 'local', model: await f.newModel({}, 'plain.gguf') }));
    f.replies.push('Back.');
    expect(await f.agent.send('And now?')).toBe('Back.');
    expect(last(f).engine?.checkpoint).toBeUndefined();
    expect(f.agent.session.turns().map((t) => t.words)).toEqual(['Read a.txt.', 'Something else.', 'And now?']);
  });

  it('a plain transformer takes none and departs in place', async () => {
    f = await engineFixture({});
    await readTurn(f, 'Read a.txt.', 'Done.');
    f.agent.undo();
    f.replies.push('Other.');
    await f.agent.send('Something else.');
    expect(engine(f).checkpoints.needed).toBe(false);
    expect(engine(f).checkpoints.list()).toEqual([]);
    expect(last(f).engine?.checkpoint).toBeUndefined();
  });
});
