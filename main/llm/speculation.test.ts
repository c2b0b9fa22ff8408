import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LlamaContextSequence, Token, TokenPredictor } from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Conversation } from '../core/engine/types.js';
import { LlamaEngine } from './engine.js';
import { checkSettings, parseSetting } from './localSettings.js';
import { loadModel, type LoadedModel } from './model.js';
import { JUDGED_AFTER, PAUSED_TOKENS, SessionLookup, SessionPredictor, sameAloneAndInBatch, speculationUsed } from './speculation.js';
import { writeTestModel } from './testModel/makeTestModel.js';

let dir: string;
let model: LoadedModel;
let withoutFlash: LoadedModel;
/** Whether this machine gives a token the same results alone as in a batch, without flash attention (measured). */
let sameInBatch: boolean;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-speculation-'));
  const file = path.join(dir, 'chatml.gguf');
  writeTestModel(file);
  model = await loadModel({ modelPath: file, contextSize: 512, threads: 1 });
  // Without flash attention, as speculation's auto requires (speculation.ts): a context of the test's own.
  const context = await model.model.createContext({ contextSize: 4096, sequences: 2, threads: 1, flashAttention: false });
  sameInBatch = await sameAloneAndInBatch(context, model.model);
  withoutFlash = { ...model, context, setup: { ...model.setup, speculation: speculationUsed('auto', 'prefix', context.flashAttention, sameInBatch) } };
}, 120_000);
afterAll(async () => {
  await withoutFlash?.context.dispose();
  await model?.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A file the reply could copy from, as a coding agent's edit copies the lines it replaces. */
const FILE = Array.from({ length: 30 }, (_, i) => `export function step${i}(queue: Job[]): number {\n  return queue.filter((job) => job.tries < ${i}).length;\n}\n`).join('');
const conversation = (messages: Conversation['messages']): Conversation => ({ system: 'You are a coding agent.', tools: [], messages, promptDate: '2026-12-07' });

describe('speculation from the session\'s own text, on the real engine', { timeout: 120_000 }, () => {
  it('drafts only where a token\'s results are the same alone and in a batch, and there gives byte-identical greedy replies; records the drafts beside the cache figures', async () => {
    expect(withoutFlash.setup.speculation?.value).toBe(sameInBatch ? 'auto' : 'off');
    const speculating = new LlamaEngine({ ...withoutFlash, setup: { ...withoutFlash.setup, speculation: speculationUsed('on', 'prefix', false) } });
    const plain = new LlamaEngine({ ...withoutFlash, setup: { ...withoutFlash.setup, speculation: speculationUsed('off', 'prefix', false) } });
    try {
      let messages: Conversation['messages'] = [{ role: 'user', text: `Fix the off-by-one in this file:\n${FILE}` }];
      for (let request = 0; request < 3; request++) {
        const on = await speculating.generate(conversation(messages), { maxTokens: 48, temperature: 0 });
        const off = await plain.generate(conversation(messages), { maxTokens: 48, temperature: 0 });
        if (sameInBatch) {
          expect(on.text).toBe(off.text);
          expect(on.usage.outputTokens).toBe(off.usage.outputTokens);
        }
        expect(off.usage.engine?.speculation).toBeUndefined();
        const figures = on.usage.engine?.speculation;
        expect(figures).toBeDefined();
        // Every token of the prompt is a place to look up from: the model checked drafts each request.
        expect(figures!.accepted + figures!.refuted).toBeGreaterThan(0);
        messages = [...messages, { role: 'model', replies: [{ text: on.text, calls: [] }] }, { role: 'user', text: `Again:\n${on.text}\n${FILE.slice(0, 400)}` }];
      }
    } finally {
      await speculating.dispose();
      await plain.dispose();
    }
  });

  it('auto turns drafting off for the rest of a session whose drafts are seldom accepted, never before it has enough of them', () => {
    const counts = { validated: 0, refuted: 0, used: 0, unused: 0 };
    const sequence = { get tokenPredictions() { return { ...counts }; } } as unknown as LlamaContextSequence;
    const auto = new SessionLookup(true);
    const on = new SessionLookup(false);
    counts.validated = 10; counts.refuted = 100;
    expect(auto.figures(sequence)).toEqual({ accepted: 10, refuted: 100 });
    expect(auto.off).toBeUndefined();
    counts.validated = 20; counts.refuted = JUDGED_AFTER + 44;
    const judged = auto.figures(sequence);
    expect(judged).toMatchObject({ accepted: 10, refuted: JUDGED_AFTER - 56 });
    expect(judged.off).toBe('20 of 320 drafted tokens accepted (6 %, under 10 %): off for this session');
    expect(auto.off).toBe(judged.off);
    expect(auto.predictTokens()).toEqual([]);
    expect(on.figures(sequence).off).toBeUndefined();
    expect(on.off).toBeUndefined();
  });

  it('auto times decoding without drafts once it has enough of them, and keeps drafting only where a token took less time with them', () => {
    const drafter = { predictTokens: () => [7 as Token], pushTokens: () => undefined, reset: () => undefined, stop: () => undefined, updateInputTokens: () => undefined, dispose: () => undefined };
    const session = (msWith: number, msWithout: number) => {
      const counts = { validated: 0, refuted: 0, used: 0, unused: 0 };
      const sequence = { get tokenPredictions() { return { ...counts }; } } as unknown as LlamaContextSequence;
      const p = new SessionPredictor(drafter as unknown as TokenPredictor, true);
      // 65 tokens a request: 64 timed after the first; two requests make the pause (PAUSED_TOKENS).
      expect(PAUSED_TOKENS).toBe(2 * 64);
      counts.validated = 100; counts.refuted = 200;
      expect(p.figures(sequence, { ms: 64 * msWith, tokens: 65 })).toEqual({ accepted: 100, refuted: 200 });
      // Judged (33 % accepted): paused, so this request and the next are timed without drafts.
      expect(p.predictTokens()).toEqual([]);
      p.figures(sequence, { ms: 64 * msWithout, tokens: 65 });
      expect(p.off).toBeUndefined();
      expect(p.predictTokens()).toEqual([]);
      return { p, last: p.figures(sequence, { ms: 64 * msWithout, tokens: 65 }) };
    };
    // One CPU thread: each draft position costs nearly a step, so drafts at a third accepted lose.
    const slow = session(33.6, 17.5);
    expect(slow.last.off).toBe('a token took 33.6 ms with drafts and 17.5 ms without: off for this session');
    expect(slow.p.predictTokens()).toEqual([]);
    // Bound by reading the weights: the same acceptance pays, and drafting goes on for the session.
    const fast = session(9, 14);
    expect(fast.last.off).toBeUndefined();
    expect(fast.p.predictTokens()).toEqual([7]);
    expect(fast.p.figures({ tokenPredictions: { validated: 100, refuted: 200 } } as unknown as LlamaContextSequence, { ms: 10_000, tokens: 65 }).off).toBeUndefined();
  });

  it('is a setting like the others: checked by name, left out where not given, not used where each draft would take a checkpoint', () => {
    expect(parseSetting('speculation', 'On')).toBe('on');
    expect(() => parseSetting('speculation', 'fast')).toThrow('speculation must be one of auto, on, off, not "fast".');
    expect(checkSettings({ speculation: 'off' }).speculation).toBe('off');
    expect('speculation' in checkSettings({})).toBe(false);
    expect(speculationUsed(undefined, 'prefix', false).value).toBe('auto');
    expect(speculationUsed('auto', 'prefix', 'auto').value).toBe('off');
    expect(speculationUsed('on', 'prefix', true).value).toBe('on');
    expect(speculationUsed('on', 'checkpoints', false)).toEqual({ value: 'off', why: 'not used on a cache kept by checkpoints (each drafted batch would take one)' });
    expect(speculationUsed('auto', 'full window cache', false).value).toBe('auto');
    // Where a token's results differ alone and in a batch, auto does not draft and on says why replies may change.
    expect(speculationUsed('auto', 'prefix', false, false)).toEqual({ value: 'off', why: 'auto: off: a token\'s results differ alone and in a batch here (measured at load), so a greedy reply could change' });
    expect(speculationUsed('on', 'prefix', false, false).why).toContain('on by setting; a token\'s results differ');
    expect(speculationUsed('auto', 'prefix', false, true).value).toBe('auto');
  });

  it('is measured at load without flash attention, as the test\'s own probe finds it', async () => {
    const loaded = await loadModel({ modelPath: model.path, contextSize: 512, threads: 1, settings: { flashAttention: 'off' } });
    try {
      expect(loaded.setup.speculation).toEqual(speculationUsed('auto', 'prefix', false, sameInBatch));
      // The probe leaves every sequence to the sessions.
      expect(loaded.context.sequencesLeft).toBe(loaded.context.totalSequences);
    } finally {
      await loaded.dispose();
    }
  });
});
