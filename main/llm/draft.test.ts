import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Conversation } from '../core/engine/types.js';
import { draftCandidates, draftMismatch, draftNeeds, planDraft } from './draft.js';
import { doctor } from './doctor.js';
import { LlamaEngine } from './engine.js';
import { checkSettings } from './localSettings.js';
import { loadLlama, loadModel, settingsOf, type LoadedModel } from './model.js';
import { sameAloneAndInBatch, speculationUsed } from './speculation.js';
import { CHATML_SPECIAL_TOKENS, writeTestModel } from './testModel/makeTestModel.js';

let dir: string;
let big: string;
let small: string;
let same: string;
let foreign: string;
let other: string;
let stranger: string;
let short: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-draft-'));
  big = path.join(dir, 'big.gguf');
  small = path.join(dir, 'small.gguf');
  same = path.join(dir, 'same-size.gguf');
  foreign = path.join(dir, 'foreign.gguf');
  other = path.join(dir, 'other-eos.gguf');
  writeTestModel(big, { embedding: 128, layers: 3, ff: 256 });
  // The same weights in F16: half the size and nearly the same guesses, as a family's small model is meant to be.
  writeTestModel(small, { embedding: 128, layers: 3, ff: 256, f16: true });
  // A smaller model of the same vocabulary but other weights: its guesses are mostly wrong.
  stranger = path.join(dir, 'stranger.gguf');
  writeTestModel(stranger, { seed: 3 });
  short = path.join(dir, 'short.gguf');
  writeTestModel(short, { contextLength: 512, seed: 4 });
  writeTestModel(same, { embedding: 128, layers: 3, ff: 256, seed: 2 });
  // Another family: one more special token shifts every normal token's id.
  writeTestModel(foreign, { specialTokens: [...CHATML_SPECIAL_TOKENS, '<|fim_prefix|>'] });
  writeTestModel(other, { eos: '</s>' });
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('a draft model', () => {
  it('is refused from another family by its vocabulary, naming both files and what differs', async () => {
    expect(await draftMismatch(big, small)).toBeUndefined();
    expect(await draftMismatch(big, foreign)).toBe(
      `The draft model ${foreign} does not share the tokenizer of ${big} (token 267: "▁" against "<|fim_prefix|>"): it is from another family.`,
    );
    expect(await draftMismatch(big, other)).toBe(`The draft model ${other} does not share the tokenizer of ${big} (end-of-text token 260 against 2): it is from another family.`);
    expect(await draftMismatch(big, same)).toBe(`The draft model ${same} is no smaller than ${big}: it could not draft faster than the model decodes.`);
    expect(await draftMismatch(big, path.join(dir, 'gone.gguf'))).toBe(`The draft model ${path.join(dir, 'gone.gguf')} does not exist.`);
  });

  it('is offered from the models folder where it is smaller and shares the tokenizer', async () => {
    const folder = fs.readdirSync(dir).map((name) => path.join(dir, name)).sort();
    expect(await draftCandidates(big, folder)).toEqual([short, small, stranger]);
    // Only smaller files: for the F16 twin, the stranger alone; never the model itself or a bigger one.
    expect(await draftCandidates(small, folder)).toEqual([short, stranger]);
    expect(await draftCandidates(stranger, folder)).toEqual([]);
  });

  it('is a setting that keeps its path as written, and none where empty', () => {
    expect(checkSettings({ draftModel: ` ${small} ` }).draftModel).toBe(small);
    expect(checkSettings({ draftModel: '' })).not.toHaveProperty('draftModel');
  });
});

describe('a draft model in fit', { timeout: 60_000 }, () => {
  const settings = { backend: 'cpu', contextSize: 1024, threads: 1, speculation: 'on' } as const;

  it('counts its weights and its context for every session in the estimate', async () => {
    const without = (await doctor({ modelPath: big, settings })).model!;
    const withDraft = (await doctor({ modelPath: big, settings: { ...settings, draftModel: small } })).model!;
    expect(without.draft).toBeUndefined();
    expect(withDraft.draft?.value).toBe(small);
    const needs = await draftNeeds(await loadLlama('cpu'), small, 1024, false);
    expect(needs.ram).toBeGreaterThan(fs.statSync(small).size);
    expect(withDraft.estimate!.ram).toBe(without.estimate!.ram + needs.ram);
    expect(withDraft.estimate!.vram).toBe(without.estimate!.vram + needs.vram);
  });

  it('runs without it where its context is too small or memory is short, saying so', async () => {
    const plan = (await doctor({ modelPath: big, settings: { ...settings, draftModel: short } })).model!;
    expect(plan.draft).toEqual({ value: null, why: `The draft model ${short} was trained for 512 tokens, fewer than the 1,024 a session holds: its context would be too small.` });
    expect(plan.problem).toBeUndefined();
    const llama = await loadLlama('cpu');
    const speculation = { value: 'on', why: 'on by setting' } as const;
    const { draft, needs } = await planDraft(llama, settingsOf({ settings: { ...settings, draftModel: small } }), speculation, big, 1024, false, { ram: 1000, vram: 0 });
    expect(needs).toBeUndefined();
    expect(draft.value).toBeNull();
    expect(draft.why).toContain(`The draft model ${small} with a 1,024-token context for 4 sessions needs `);
    expect(draft.why).toContain(' of RAM, 1.0 kB free beside the model: Keel runs without it.');
  });
});

describe('a draft model on the real engine', { timeout: 180_000 }, () => {
  const loaded: LoadedModel[] = [];
  const load = async (draftModel: string, speculation: 'on' | 'off' = 'on') => {
    const m = await loadModel({ modelPath: big, contextSize: 1024, threads: 1, settings: { speculation, draftModel } });
    loaded.push(m);
    return m;
  };
  afterAll(async () => {
    for (const m of loaded) await m.dispose();
  });
  const conversation = (text: string): Conversation => ({ system: 'You are a coding agent.', tools: [], messages: [{ role: 'user', text }], promptDate: '2026-12-07' });

  const greedyBoth = async (draftModel: string) => {
    const drafting = await load(draftModel);
    expect(drafting.setup.draft?.value).toBe(draftModel);
    expect(drafting.draft).toBeDefined();
    // Flash attention computes a batch otherwise than one token; without it the check is exact (speculation.ts).
    const context = await drafting.model.createContext({ contextSize: 1024, sequences: 1, threads: 1, flashAttention: false });
    const plainContext = await drafting.model.createContext({ contextSize: 1024, sequences: 1, threads: 1, flashAttention: false });
    // Only where a token's results are the same alone and in a batch do drafts promise the same replies (speculation.ts).
    const same = await sameAloneAndInBatch(context, drafting.model);
    const setup = { ...drafting.setup, speculation: speculationUsed('on', 'prefix', false) };
    // Random weights are never confident of a guess: every guess is drafted, so the model checks many.
    const on = new LlamaEngine({ ...drafting, context, setup, draft: { ...drafting.draft!, minConfidence: 0 } });
    const off = new LlamaEngine({ ...drafting, context: plainContext, setup: { ...setup, speculation: speculationUsed('off', 'prefix', false) } });
    const total = { accepted: 0, refuted: 0 };
    try {
      for (const text of ['Fix the bug in main.ts please', 'Read the file src/index.ts and then run the tests']) {
        const a = await on.generate(conversation(text), { maxTokens: 40, temperature: 0 });
        const b = await off.generate(conversation(text), { maxTokens: 40, temperature: 0 });
        if (same) expect(a.text).toBe(b.text);
        expect(b.usage.engine?.speculation).toBeUndefined();
        total.accepted += a.usage.engine!.speculation!.accepted;
        total.refuted += a.usage.engine!.speculation!.refuted;
      }
    } finally {
      await on.dispose();
      await off.dispose();
      await context.dispose();
      await plainContext.dispose();
    }
    return total;
  };

  it('drafts with the draft model and gives greedy replies byte-identical to none, right guesses or wrong', async () => {
    // The F16 twin guesses as the model decides; a stranger of the same vocabulary mostly guesses wrong.
    expect((await greedyBoth(small)).accepted).toBeGreaterThan(0);
    expect((await greedyBoth(stranger)).refuted).toBeGreaterThan(0);
  });

  it('loads the model without a draft from another family, with the reason', async () => {
    const m = await load(foreign);
    expect(m.draft).toBeUndefined();
    expect(m.setup.draft?.value).toBeNull();
    expect(m.setup.draft?.why).toContain(`The draft model ${foreign} does not share the tokenizer of ${big}`);
  });

  it('is not loaded where speculation is off', async () => {
    const m = await load(small, 'off');
    expect(m.draft).toBeUndefined();
    expect(m.setup.draft).toEqual({ value: null, why: `${small} not used: speculation is off (off by setting)` });
  });
});
