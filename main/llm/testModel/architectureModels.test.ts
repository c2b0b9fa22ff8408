/**
 * The test models of the architectures people run now load in the real node-llama-cpp (which judges
 * their class from the GGUF as it would a downloaded model's) and in the real llama-server, and both
 * generate from them: a model that crashes either would hide every cache test behind it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { architectureOf } from '../architecture.js';
import { modelInsights } from '../fit.js';
import { loadLlama } from '../model.js';
import { sessionWrapper, wrapperProblem } from '../wrapper.js';
import { llamaServerMissing, mustHaveLlamaServer, startLlamaServer } from '../../../test/llamaServer.js';
import { ARCHITECTURE_MODELS, architectureModel } from './architectureModels.js';
import { makeTestModel, writeTestModel } from './makeTestModel.js';

let dir: string;
const file = (arch: string) => path.join(dir, `${arch}.gguf`);
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-arch-models-'));
  for (const spec of ARCHITECTURE_MODELS) writeTestModel(file(spec.architecture), spec);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const CLASSES = { qwen35: 'hybrid', lfm2: 'hybrid', 'gpt-oss': 'sliding window', gemma4: 'sliding window' };
const WRAPPERS = { qwen35: 'Qwen', 'gpt-oss': 'Harmony', gemma4: 'Gemma 4', lfm2: 'ChatML' };

describe('architecture test models', { timeout: 240_000 }, () => {
  it('are deterministic and carry their family\'s real template', () => {
    const spec = architectureModel('qwen35');
    expect(makeTestModel(spec).equals(makeTestModel(spec))).toBe(true);
    expect(spec.template).toContain('<think>');
    expect(architectureModel('gpt-oss').template).toContain('<|channel|>');
    expect(() => architectureModel('llama')).toThrow(/no test model of architecture llama/);
  });

  it('load in node-llama-cpp, which judges their class from the file, and generate', async () => {
    const llama = await loadLlama('cpu');
    for (const spec of ARCHITECTURE_MODELS) {
      const arch = architectureOf(await modelInsights(llama, file(spec.architecture)));
      expect(arch, spec.architecture).toMatchObject({ name: spec.architecture, class: CLASSES[spec.architecture as keyof typeof CLASSES], supported: true });
      const model = await llama.loadModel({ modelPath: file(spec.architecture) });
      try {
        const wrapper = sessionWrapper(model, '2026-12-05');
        expect(wrapperProblem(wrapper), spec.architecture).toBeUndefined();
        expect(wrapper.wrapperName, spec.architecture).toBe(WRAPPERS[spec.architecture as keyof typeof WRAPPERS]);
        const context = await model.createContext({ contextSize: 1024, threads: 1 });
        const sequence = context.getSequence();
        const tokens = model.tokenize('Read the file and fix the test, then run it. '.repeat(8));
        let generated = 0;
        for await (const token of sequence.evaluate(tokens)) {
          expect(typeof token).toBe('number');
          if (++generated === 4) break;
        }
        expect(sequence.nextTokenIndex).toBeGreaterThan(tokens.length);
        await context.dispose();
      } finally {
        await model.dispose();
      }
    }
  });

  it('in F16 keep the weights llama.cpp reads only in F32 (convolutions, expert routers) and run', async () => {
    const llama = await loadLlama('cpu');
    for (const architecture of ['qwen35', 'lfm2', 'gpt-oss'] as const) {
      const modelPath = path.join(dir, `${architecture}-f16.gguf`);
      writeTestModel(modelPath, { ...architectureModel(architecture), f16: true });
      const model = await llama.loadModel({ modelPath });
      try {
        const context = await model.createContext({ contextSize: 512, threads: 1 });
        await context.getSequence().evaluateWithoutGeneratingNewTokens(model.tokenize('Fix the test. '.repeat(10)));
        await context.dispose();
      } finally {
        await model.dispose();
      }
    }
  });
});

const missing = llamaServerMissing();
describe.skipIf(missing !== undefined && !mustHaveLlamaServer)('architecture test models on llama-server', { timeout: 240_000 }, () => {
  it('load and complete', async () => {
    for (const spec of ARCHITECTURE_MODELS) {
      const server = await startLlamaServer({ model: file(spec.architecture), contextSize: 2048, slots: 1, threads: 1 });
      try {
        const res = await fetch(`${server.url}/completion`, { method: 'POST', body: JSON.stringify({
          // Random weights write special tokens the server's reply parser refuses: the grammar keeps the words plain.
          prompt: 'Read the file and fix the test.', n_predict: 4, grammar: 'root ::= [a-z ]+',
        }) });
        const body = (await res.json()) as { tokens_predicted: number };
        expect(res.status, server.log()).toBe(200);
        expect(body.tokens_predicted, spec.architecture).toBe(4);
      } finally {
        await server.stop();
      }
    }
  });
});
