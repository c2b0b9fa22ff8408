import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KeelEvent } from '../contract.js';
import { DEFAULT_PROMPTS_DIR } from '../core/prompts/buildSystemPrompt.js';
import { SqliteStore } from '../db/store.js';
import { writeTestModel } from '../llm/testModel/makeTestModel.js';
import { DEFAULT_LOCAL_SETTINGS, type LocalSettings } from '../llm/localSettings.js';
import { checkCall } from './checkCall.js';
import { Machine } from './machine.js';
import { KeelService } from './service.js';
import { readSettings } from './settings.js';

let dir: string;
let store: SqliteStore;
let service: KeelService;
let model: string;
const replies: string[] = [];

function start(): KeelService {
  const events: KeelEvent[] = [];
  return new KeelService({
    store, dataFolder: path.join(dir, 'data'), promptsDir: DEFAULT_PROMPTS_DIR, emit: (e) => events.push(e),
    threads: 1, scriptFor: () => ({ next: () => replies.shift() }),
  });
}

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-machine-')));
  fs.mkdirSync(path.join(dir, 'ws'));
  model = path.join(dir, 'tiny.gguf');
  writeTestModel(model, { contextLength: 8192 });
  store = new SqliteStore(path.join(dir, 'keel.db'));
  service = start();
});

afterEach(async () => {
  await service.close();
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('local engine settings in the app', { timeout: 120_000 }, () => {
  it('loads with what the machine allows and shows what the model uses', async () => {
    expect(await service.localSettings()).toEqual({ backend: 'auto', gpuLayers: 'auto', contextSize: 'auto', threads: 'auto', kvCacheType: 'auto', checkpointMemory: 'auto', windowCache: 'auto' });
    await service.loadModel(model);
    const setup = (await service.getState()).loadedSetups?.[model];
    expect(setup).toMatchObject({ contextSize: 8192, trainContextSize: 8192, sequences: 4, kvCacheType: 'F16', threads: 1 });
  });

  it('applies new settings by loading the model again, keeps them, and a session goes on', async () => {
    // Trained for more than the new setting, so that the prompt (about 5k tokens) stays under compact_at.
    writeTestModel(model, { contextLength: 32768 });
    await service.loadModel(model);
    const session = await service.createSession({ workspace: path.join(dir, 'ws'), kind: 'chat', mode: 'auto' });
    replies.push('First.');
    await service.send(session.id, 'hello');

    expect(await service.setLocalSettings({ backend: 'cpu', contextSize: '16384' }))
      .toEqual({ backend: 'cpu', gpuLayers: 'auto', contextSize: 16384, threads: 'auto', kvCacheType: 'auto', checkpointMemory: 'auto', windowCache: 'auto' });
    expect((await service.getState()).loadedSetups?.[model]).toMatchObject({ backend: 'CPU', contextSize: 16384 });
    expect(readSettings(path.join(dir, 'data')).local).toMatchObject({ backend: 'cpu', contextSize: 16384 });

    replies.push('Second.');
    await service.send(session.id, 'again');
    const view = await service.openSession(session.id);
    expect(view.turns.map((t) => t.parts)).toEqual([[{ type: 'text', text: 'First.' }], [{ type: 'text', text: 'Second.' }]]);
    const rows = await service.requests(session.id);
    expect(rows.at(-1)?.contextSize).toBe(16384);

    // The next start uses the saved settings.
    await service.close();
    service = start();
    expect((await service.localSettings()).contextSize).toBe(16384);
  });

  it('refuses a setting that does not fit, in words, and changes nothing', async () => {
    await service.loadModel(model);
    await service.setLocalSettings({ contextSize: '4096' });
    await expect(service.setLocalSettings({ contextSize: '65536' }))
      .rejects.toThrow('A 65,536-token context is more than this model was trained for; it takes up to 8,192.');
    await expect(service.setLocalSettings({ threads: 'lots' })).rejects.toThrow('threads must be auto or a whole number from 1 to 1,024, not "lots".');
    expect((await service.localSettings()).contextSize).toBe(4096);
    expect(readSettings(path.join(dir, 'data')).local?.contextSize).toBe(4096);
    expect((await service.getState()).loadedSetups?.[model]?.contextSize).toBe(4096);
  });

  it('reports the doctor for the app model, the saved settings included', async () => {
    await service.loadModel(model);
    await service.setLocalSettings({ backend: 'cpu', kvCacheType: 'f16' });
    const report = await service.doctor();
    expect(report.settings).toMatchObject({ backend: 'cpu', kvCacheType: 'f16', threads: 1 });
    expect(report.machine.backend).toBe('CPU');
    expect(report.model).toMatchObject({ path: model, contextSize: { value: 8192 }, kvCacheType: { value: 'F16', why: 'Set to f16.' } });
    await expect(service.doctor(path.join(dir, 'none.gguf'))).rejects.toThrow(`The model file ${path.join(dir, 'none.gguf')} does not exist.`);
  });

  it('puts the previous settings back, and loads with them, when loading with the new ones fails', async () => {
    let saved: LocalSettings | undefined = { ...DEFAULT_LOCAL_SETTINGS, contextSize: 2048 };
    const machine = new Machine({ saved: () => saved, save: (s) => (saved = s) });
    const loadedWith: (number | 'auto' | undefined)[] = [];
    const reload = async () => {
      loadedWith.push(saved?.contextSize);
      if (saved?.contextSize === 4096) throw new Error('no room for 4,096');
    };
    await expect(machine.apply({ contextSize: '4096' }, reload)).rejects.toThrow('no room for 4,096');
    expect(saved?.contextSize).toBe(2048);
    expect(loadedWith).toEqual([4096, 2048]);
  });

  it('takes the settings as text over the contract, and refuses other shapes', () => {
    expect(checkCall('setLocalSettings', [{ contextSize: '8192', backend: 'cpu' }])).toBe('setLocalSettings');
    expect(() => checkCall('setLocalSettings', [{ contextSize: 8192 }])).toThrow('setLocalSettings: "contextSize" must be a string.');
    expect(() => checkCall('setLocalSettings', [{ gpu: 'yes' }])).toThrow('unknown property "gpu"');
    expect(checkCall('doctor', [])).toBe('doctor');
  });
});
