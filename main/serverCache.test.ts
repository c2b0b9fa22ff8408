/**
 * `keel doctor --server`: a real llama-server serving a generated hybrid model, a plain one, and one
 * whose file is no longer here; the class comes from the file the server names, the advice from the class.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { llamaServerMissing, mustHaveLlamaServer, startLlamaServer } from '../test/llamaServer.js';
import { architectureModel } from './llm/testModel/architectureModels.js';
import { writeTestModel } from './llm/testModel/makeTestModel.js';
import { ServerClient } from './remote/http.js';
import { connectServer } from './remote/connect.js';
import { ServerEngine } from './remote/engine.js';
import type { Conversation } from './core/engine/types.js';
import { serverCache } from './serverCache.js';

const missing = llamaServerMissing();
let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-server-cache-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function report(file: string, after?: () => void, extraArgs?: string[]) {
  const server = await startLlamaServer({ model: file, contextSize: 2048, slots: 1, threads: 1, extraArgs });
  try {
    after?.();
    return await serverCache(new ServerClient({ url: server.url }));
  } finally {
    await server.stop();
  }
}

describe.skipIf(missing !== undefined && !mustHaveLlamaServer)('the cache of a llama-server\'s model', { timeout: 120_000 }, () => {
  it('a hybrid model: read from the file the server names, and the flags that keep its checkpoints', async () => {
    const file = path.join(dir, 'hybrid.gguf');
    writeTestModel(file, architectureModel('lfm2'));
    const r = await report(file);
    expect(r).toMatchObject({ modelPath: file, architecture: { name: 'lfm2', class: 'hybrid' } });
    expect(r.advice).toHaveLength(1);
    expect(r.advice[0]).toContain('--checkpoint-min-step 0');
  });

  it('a plain transformer needs no flag; a server that does not speculate is told how', async () => {
    const file = path.join(dir, 'plain.gguf');
    writeTestModel(file);
    const r = await report(file);
    expect(r.architecture?.class).toBe('transformer');
    expect(r.advice).toEqual([]);
    expect(r.speculation?.on).toBe(false);
    expect(r.speculation?.advice).toContain('--spec-type ngram-mod');
  });

  it('a server that drafts from the prompt\'s text: said by doctor, and each reply\'s drafts recorded beside its cache figures', async () => {
    const file = path.join(dir, 'lookup.gguf');
    writeTestModel(file);
    const server = await startLlamaServer({ model: file, contextSize: 2048, slots: 1, threads: 1, alias: 'm', extraArgs: ['--spec-type', 'ngram-mod'] });
    try {
      expect((await serverCache(new ServerClient({ url: server.url }))).speculation).toEqual({ on: true });
      const engine = new ServerEngine(await connectServer({ url: server.url, model: 'm' }));
      // The generated model's greedy reply repeats itself: n-gram drafts from it are taken.
      const c: Conversation = { system: 'You are a test.', tools: [], promptDate: '', messages: [{ role: 'user', text: 'abc def ghi jkl '.repeat(40) }] };
      const { usage } = await engine.generate(c, { maxTokens: 120, temperature: 0 });
      const drafts = usage.engine?.speculation;
      expect(drafts?.accepted).toBeGreaterThan(0);
      expect(drafts!.refuted).toBeGreaterThanOrEqual(0);
      await engine.dispose();
    } finally {
      await server.stop();
    }
  });

  it('a model file not on this machine: said so, with the flags for each kind', async () => {
    const file = path.join(dir, 'gone.gguf');
    writeTestModel(file, architectureModel('gemma4'));
    const r = await report(file, () => fs.rmSync(file));
    expect(r.architecture).toBeUndefined();
    expect(r.unknown).toBe(`The model file ${file} is not on this machine, so Keel cannot read its architecture.`);
    expect(r.advice.join('\n')).toMatch(/hybrid[\s\S]*--checkpoint-min-step 0[\s\S]*sliding window[\s\S]*--swa-full/);
  });
});
