import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREFILL_FROM } from './batchThreads.js';
import { doctor } from './doctor.js';
import { measureSpeed, threadCandidates } from './measureSpeed.js';
import { loadLlama, loadModel, settingsOf } from './model.js';
import { readSpeed, speedKey, writeSpeed, type SpeedFigures } from './speed.js';
import { writeTestModel } from './testModel/makeTestModel.js';
import { autoThreads, planThreads } from './threads.js';

let dir: string;
let model: string;
let folder: string;
const settings = settingsOf({ settings: { backend: 'cpu', contextSize: 1024 } });

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-speed-'));
  model = path.join(dir, 'model.gguf');
  folder = path.join(dir, 'speed');
  writeTestModel(model, { layers: 2 });
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Figures as a measurement would keep them for `model` here, with the counts a test needs. */
async function figuresFor(file: string, threads: SpeedFigures['threads'], batches: SpeedFigures['batches'] = []): Promise<SpeedFigures> {
  return { key: await speedKey(await loadLlama('cpu'), file, 'auto'), measuredAt: '2026-12-07T06:00:00.000Z', loadAverage: 0.5, threads, batches };
}

describe('speed measured on the real engine', { timeout: 300_000 }, () => {
  it('runs, is kept, is read back by the plan and the load, and is not read once the model file changes', async () => {
    const llama = await loadLlama('cpu');
    const steps: string[] = [];
    const { figures, path: kept } = await measureSpeed(model, settings, folder, (s) => steps.push(s));
    expect(path.dirname(kept)).toBe(folder);
    expect(figures.threads.map((t) => t.threads).sort()).toEqual(threadCandidates(autoThreads(llama).value));
    for (const t of figures.threads) {
      expect(t.decodeMs).toBeGreaterThan(0);
      expect(t.prefillPerSecond).toBeGreaterThan(0);
    }
    expect(figures.batches.map((b) => b.batchSize)).toEqual([512, 1024, 2048]);
    expect(steps.length).toBeGreaterThanOrEqual(figures.threads.length);
    expect(readSpeed(folder, figures.key)).toEqual(figures);

    const fastest = figures.threads.reduce((a, b) => (b.decodeMs < a.decodeMs ? b : a)).threads;
    const plan = (await doctor({ settings, modelPath: model, speedFolder: folder })).model!;
    expect(plan.threads.value).toBe(fastest);
    expect(plan.threads.why).toMatch(/^Measured(: | for decoding: )decoding [\d.]+ ms a token/);
    expect(plan.threads.why).toContain(`measured ${figures.measuredAt.slice(0, 10)}, load average ${figures.loadAverage.toFixed(2)}`);
    expect(plan.batchSize?.value).toBeGreaterThanOrEqual(512);
    const loaded = await loadModel({ modelPath: model, settings, speedFolder: folder });
    try {
      expect(loaded.setup.threads).toBe(fastest);
    } finally {
      await loaded.dispose();
    }

    // Another flash attention setting is another key: its figures were not measured.
    expect((await planThreads(llama, model, false, settings, folder)).threads.why).toContain('Not measured for this model here');
    // The same file rewritten (another model): the figures are not read, and the rule is back.
    writeTestModel(model, { layers: 2, seed: 2 });
    expect(readSpeed(folder, await speedKey(llama, model, 'auto'))).toBeUndefined();
    const after = (await doctor({ settings, modelPath: model, speedFolder: folder })).model!;
    expect(after.threads).toEqual({ value: autoThreads(llama).value, why: `${autoThreads(llama).why} Not measured for this model here: keel doctor MODEL --measure.` });
    expect(after.batchSize).toBeUndefined();
  });

  it('where prefill measured faster with more threads than decoding, the load gives each batch its count', async () => {
    const file = path.join(dir, 'split.gguf');
    writeTestModel(file, { layers: 2, seed: 3 });
    writeSpeed(folder, await figuresFor(file, [
      { threads: 1, decodeMs: 2, prefillPerSecond: 1000 },
      { threads: 2, decodeMs: 3, prefillPerSecond: 1500 },
    ]));
    const loaded = await loadModel({ modelPath: file, settings, speedFolder: folder });
    try {
      expect(loaded.setup).toMatchObject({ threads: 1, batchThreads: 2 });
      const native = (loaded.context as unknown as { _ctx: { getThreads(): number } })._ctx;
      const sequence = loaded.context.getSequence();
      const prompt = loaded.model.tokenize('export function step(queue) { return queue.length; }\n'.repeat(20)).slice(0, PREFILL_FROM + 8);
      await sequence.evaluateWithoutGeneratingNewTokens(prompt);
      expect(native.getThreads()).toBe(2);
      let made = 0;
      for await (const token of sequence.evaluate(loaded.model.tokenize(' x'), { temperature: 0 })) {
        void token;
        if (++made >= 2) break;
      }
      expect(native.getThreads()).toBe(1);
    } finally {
      await loaded.dispose();
    }
  });
});

describe('threads and batch size from figures', () => {
  it('says the figures: the fastest decoding count, and a larger batch only where it is 10 % faster in every round', async () => {
    const llama = await loadLlama('cpu');
    const file = path.join(dir, 'words.gguf');
    writeTestModel(file, { layers: 2, seed: 4 });
    const threads = [{ threads: 1, decodeMs: 55.2, prefillPerSecond: 230 }, { threads: 2, decodeMs: 31, prefillPerSecond: 410 }];
    const batch = (batchSize: number, prefillPerSecond: number, slowestPerSecond = prefillPerSecond) => ({ batchSize, prefillPerSecond, slowestPerSecond });
    writeSpeed(folder, await figuresFor(file, threads, [batch(512, 400), batch(1024, 420)]));
    const plan = await planThreads(llama, file, 'auto', settings, folder);
    expect(plan.threads).toEqual({ value: 2, why: 'Measured: decoding 31.0 ms a token with 2, against 55.2 ms with 1; prefill 410 tokens/s with 2, against 230 tokens/s with 1 (measured 2026-12-07, load average 0.50).' });
    expect(plan.batchThreads).toBeUndefined();
    expect(plan.batchSize?.value).toBe(512);
    // Faster at best, but not in its slowest round: noise on a busy machine, not a gain.
    writeSpeed(folder, await figuresFor(file, threads, [batch(512, 400, 330), batch(1024, 470, 400)]));
    expect((await planThreads(llama, file, 'auto', settings, folder)).batchSize?.value).toBe(512);
    writeSpeed(folder, await figuresFor(file, threads, [batch(512, 400, 390), batch(1024, 470, 450)]));
    expect((await planThreads(llama, file, 'auto', settings, folder)).batchSize).toEqual({
      value: 1024, why: 'Measured: prefill 450 tokens/s or more against 400 tokens/s at most at 512, node-llama-cpp\'s default (measured 2026-12-07, load average 0.50).',
    });
    // A number set wins over the figures; the batch size measured still holds.
    expect((await planThreads(llama, file, 'auto', { ...settings, threads: 1 }, folder)).threads).toEqual({ value: 1, why: 'Set to 1.' });
  });

  it('tries 1, 2, 4… and the usable cores', () => {
    expect(threadCandidates(1)).toEqual([1]);
    expect(threadCandidates(2)).toEqual([1, 2]);
    expect(threadCandidates(6)).toEqual([1, 2, 4, 6]);
    expect(threadCandidates(16)).toEqual([1, 2, 4, 8, 16]);
  });

  it('reads nothing from a broken file or one holding another key', async () => {
    const figures = await figuresFor(path.join(dir, 'words.gguf'), [{ threads: 1, decodeMs: 1, prefillPerSecond: 1 }]);
    const kept = writeSpeed(folder, figures);
    fs.writeFileSync(kept, '{ not json');
    expect(readSpeed(folder, figures.key)).toBeUndefined();
    fs.writeFileSync(kept, JSON.stringify({ ...figures, key: { ...figures.key, cpu: 'another' } }));
    expect(readSpeed(folder, figures.key)).toBeUndefined();
  });
});

