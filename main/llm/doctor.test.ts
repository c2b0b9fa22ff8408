import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doctor } from './doctor.js';
import { GgufInsights, readGgufFileInfo } from 'node-llama-cpp';
import { FitError, impossible, planFit } from './fit.js';
import { checkSettings, parseSetting, SettingError } from './localSettings.js';
import { loadLlama, loadModel, settingsOf } from './model.js';
import { writeTestModel } from './testModel/makeTestModel.js';
import { sameAloneAndInBatch } from './speculation.js';

let dir: string;
/** 2 blocks, trained for 8,192 tokens, head size 64 / 4 = 16. */
let small: string;
/** Head size 64 / 2 = 32: a quantized KV cache can hold it. */
let wideHeads: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-doctor-'));
  small = path.join(dir, 'small.gguf');
  wideHeads = path.join(dir, 'wide.gguf');
  writeTestModel(small, { layers: 2, contextLength: 8192 });
  writeTestModel(wideHeads, { layers: 2, heads: 2, contextLength: 8192 });
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Whether this machine shows node-llama-cpp anything it could run a GPU backend on. */
const gpuVisible = process.platform === 'darwin' || ['/dev/nvidiactl', '/dev/dri', '/dev/kfd'].some((p) => fs.existsSync(p));

/** Loading node-llama-cpp's binding takes seconds on a busy 2-core machine. */
const SLOW = { timeout: 60_000 };

describe('doctor: the machine', SLOW, () => {
  it('with the CPU backend, reports no GPU and RAM figures the system agrees with', async () => {
    const { machine } = await doctor({ settings: { backend: 'cpu' } });
    expect(machine.backend).toBe('CPU');
    expect(machine.why).toBe('The backend is set to CPU.');
    expect(machine.devices).toEqual([]);
    expect(machine.vram).toBeUndefined();
    expect(Math.abs(machine.ram.total - os.totalmem()) / os.totalmem()).toBeLessThan(0.02);
    expect(machine.ram.free).toBeGreaterThan(0);
    expect(machine.ram.free).toBeLessThanOrEqual(machine.ram.total);
    expect(machine.ram.usable).toBeLessThanOrEqual(machine.ram.total);
    expect(machine.cpuMathCores).toBeGreaterThanOrEqual(1);
    expect(machine.cpuMathCores).toBeLessThanOrEqual(os.cpus().length);
  });

  it.runIf(!gpuVisible)('on a machine without a GPU device, auto says it found none and uses the CPU', async () => {
    const { machine } = await doctor();
    expect(machine.setting).toBe('auto');
    expect(machine.backend).toBe('CPU');
    expect(machine.devices).toEqual([]);
    expect(machine.vram).toBeUndefined();
    expect(machine.why).toMatch(/found no usable GPU|no GPU builds/);
  });
});

describe('doctor: a model file', SLOW, () => {
  it('plans the trained context, no GPU layers on the CPU, F16 KV and the reasons', async () => {
    const { model } = await doctor({ settings: { backend: 'cpu' }, modelPath: small });
    expect(model).toBeDefined();
    expect(model!.path).toBe(small);
    expect(model!.sizeBytes).toBe(fs.statSync(small).size);
    expect(model!.trainContextSize).toBe(8192);
    // node-llama-cpp counts the output layer as one more offloadable layer.
    expect(model!.totalLayers).toBe(3);
    expect(model!.gpuLayers).toEqual({ value: 0, why: 'The CPU backend keeps every layer in RAM.' });
    expect(model!.contextSize.value).toBe(8192);
    expect(model!.contextSize.why).toMatch(/^The model's trained context \(8,192 tokens\) fits, for 4 sessions at once, in the RAM free beside the model \(/);
    expect(model!.kvCacheType.value).toBe('F16');
    expect(model!.flashAttention.value).toBe('auto');
    expect(model!.problem).toBeUndefined();
    expect(model!.estimate!.ram).toBeGreaterThan(0);
    expect(model!.estimate!.vram).toBe(0);
  });

  it('says which setting cannot be used and plans what fits instead', async () => {
    const { model } = await doctor({ settings: { backend: 'cpu', contextSize: 16384, threads: 1 }, modelPath: small });
    expect(model!.problem).toBe('A 16,384-token context is more than this model was trained for; it takes up to 8,192.');
    expect(model!.contextSize.value).toBe(8192);
    expect(model!.threads).toEqual({ value: 1, why: 'Set to 1.' });
  });

  it('plans `threads: auto` as the cores that do math, never more (node-llama-cpp alone takes at least 4 on the CPU)', async () => {
    const llama = await loadLlama('cpu');
    const cores = Math.min(llama.cpuMathCores, os.availableParallelism());
    const { model } = await doctor({ settings: { backend: 'cpu', contextSize: 2048 }, modelPath: small });
    expect(model!.threads.value).toBe(cores);
    expect(model!.threads.why).toMatch(new RegExp(`\\b${llama.cpuMathCores}\\b`));
    const loaded = await loadModel({ modelPath: small, settings: { backend: 'cpu', contextSize: 2048 } });
    try {
      expect(loaded.context.idealThreads).toBe(cores);
      expect(loaded.setup.threads).toBe(cores);
    } finally {
      await loaded.dispose();
    }
  });

  it('names a file that is missing or not a GGUF', async () => {
    await expect(doctor({ modelPath: path.join(dir, 'none.gguf') })).rejects.toThrow(`The model file ${path.join(dir, 'none.gguf')} does not exist.`);
    const text = path.join(dir, 'notes.gguf');
    fs.writeFileSync(text, 'not a model');
    await expect(doctor({ modelPath: text })).rejects.toThrow(`${text} is not a GGUF model node-llama-cpp can read`);
  });
});

describe('loadModel with local settings', SLOW, () => {
  it('defaults to what the machine allows and reports what it used', async () => {
    const loaded = await loadModel({ modelPath: small, threads: 1, settings: { backend: 'cpu' } });
    try {
      expect(loaded.setup).toEqual({
        backend: 'CPU', devices: [], gpuLayers: 0, totalLayers: 3, contextSize: 8192, trainContextSize: 8192, sequences: 4,
        kvCacheType: 'F16', flashAttention: 'auto', threads: 1, cacheStrategy: 'prefix',
        speculation: { value: 'off', why: 'auto: off with flash attention, whose results depend on the batch size (a greedy reply could change)' },
      });
      expect(loaded.context.contextSize).toBe(8192);
    } finally {
      await loaded.dispose();
    }
  });

  it('uses a quantized KV cache when the model can hold one', async () => {
    const loaded = await loadModel({ modelPath: wideHeads, threads: 1, settings: { backend: 'cpu', contextSize: 1024, kvCacheType: 'q8_0' } });
    try {
      expect(loaded.setup.kvCacheType).toBe('Q8_0');
      expect(loaded.setup.contextSize).toBe(1024);
    } finally {
      await loaded.dispose();
    }
  });

  it.each([
    [{ contextSize: 65536 }, 'A 65,536-token context is more than this model was trained for; it takes up to 8,192.'],
    [{ gpuLayers: 999 }, '999 GPU layers were asked, but the backend is set to CPU; 0 fit.'],
    [{ kvCacheType: 'q4_0' as const }, "A q4_0 KV cache needs the model's attention head size (16) to be a multiple of 32; f16 fits."],
  ])('refuses %o in words, before loading anything', async (settings, message) => {
    const attempt = loadModel({ modelPath: small, threads: 1, settings: { backend: 'cpu', ...settings } });
    await expect(attempt).rejects.toThrow(FitError);
    await expect(attempt).rejects.toThrow(message);
  });

  it('refuses a context that does not fit in memory, saying what fits, and what it says fits loads', async () => {
    // A RAM cap is node-llama-cpp's own way to give it less memory: here, too little for 4 × 8,192 tokens.
    const llama = await loadLlama('cpu');
    await llama.setRamCap(8 * 1024 * 1024);
    try {
      const attempt = loadModel({ modelPath: small, threads: 1, settings: { backend: 'cpu', contextSize: 8192 } });
      const error = (await attempt.catch((e: Error) => e)) as Error;
      expect(error).toBeInstanceOf(FitError);
      const match = /^A 8,192-token context \(for 4 sessions at once\) does not fit in the RAM free beside the model \([\d.]+ MB\); up to ([\d,]+) fits\.$/.exec(error.message);
      expect(match, error.message).not.toBeNull();
      const fits = Number(match![1].replace(/,/g, ''));
      expect(fits).toBeGreaterThan(0);
      expect(fits).toBeLessThan(8192);
      const loaded = await loadModel({ modelPath: small, threads: 1, settings: { backend: 'cpu', contextSize: fits } });
      expect(loaded.setup.contextSize).toBe(fits);
      await loaded.dispose();
    } finally {
      await llama.setRamCap(null);
    }
  });
});

describe('the flash attention setting', SLOW, () => {
  it('is planned with its reason, and off lets `auto` speculation draft (speculation.ts)', async () => {
    const plan = async (flashAttention?: 'auto' | 'on' | 'off') => (await doctor({ settings: { backend: 'cpu', contextSize: 1024, flashAttention }, modelPath: small })).model!;
    const [auto, on, off] = [await plan(), await plan('on'), await plan('off')];
    expect(auto.flashAttention).toEqual({ value: 'auto', why: 'llama.cpp uses it where the device supports it.' });
    expect(on.flashAttention).toEqual({ value: 'on', why: 'Set to on.' });
    expect(off.flashAttention).toEqual({ value: 'off', why: 'Set to off.' });
    expect([auto.speculation?.value, on.speculation?.value, off.speculation?.value]).toEqual(['off', 'off', 'auto']);
  });

  it('reaches the load: the context is made with it, and speculation sees the real value', async () => {
    for (const [setting, used, speculation] of [['off', 'off', 'auto'], ['on', 'on', 'off']] as const) {
      const loaded = await loadModel({ modelPath: small, threads: 1, settings: { backend: 'cpu', contextSize: 1024, flashAttention: setting } });
      try {
        expect(loaded.context.flashAttention).toBe(setting === 'on');
        expect(loaded.setup.flashAttention).toBe(used);
        // Without flash attention, auto drafts where the load measured a token's results the same alone and in a batch.
        const measured = speculation === 'auto' && !(await sameAloneAndInBatch(loaded.context, loaded.model)) ? 'off' : speculation;
        expect(loaded.setup.speculation?.value).toBe(measured);
      } finally {
        await loaded.dispose();
      }
    }
  });

  it('refuses on for a model without it, and a quantized KV cache with it off, saying what fits', async () => {
    const llama = await loadLlama('cpu');
    // gemma2 is an architecture llama.cpp runs without flash attention (GgufInsights.flashAttentionSupported).
    const info = await readGgufFileInfo(small, { sourceType: 'filesystem' });
    const gemma2 = await GgufInsights.from({ ...info, metadata: { ...info.metadata, general: { ...info.metadata.general, architecture: 'gemma2' } } } as typeof info, llama);
    expect(gemma2.flashAttentionSupported).toBe(false);
    const settings = settingsOf({ settings: { backend: 'cpu', contextSize: 1024, flashAttention: 'on' } });
    expect(impossible(llama, gemma2, settings)).toBe('Flash attention is set on, but this model\'s architecture does not support it; auto (off for this model) fits.');
    const plan = await planFit(llama, small, gemma2, settings);
    expect(plan.problem).toBe(impossible(llama, gemma2, settings));
    expect(plan.flashAttention).toEqual({ value: 'off', why: 'This model\'s architecture does not support it.' });
    const attempt = loadModel({ modelPath: wideHeads, threads: 1, settings: { backend: 'cpu', contextSize: 1024, kvCacheType: 'q8_0', flashAttention: 'off' } });
    await expect(attempt).rejects.toThrow(new FitError('A q8_0 KV cache needs flash attention, which is set off; f16 fits.'));
  });
});

describe('settings from text', () => {
  it('takes auto, whole numbers in range and the listed names', () => {
    expect(parseSetting('contextSize', '32768')).toBe(32768);
    expect(parseSetting('gpuLayers', 'AUTO')).toBe('auto');
    expect(parseSetting('gpuLayers', '0')).toBe(0);
    expect(parseSetting('kvCacheType', 'Q8_0')).toBe('q8_0');
    expect(parseSetting('backend', 'cpu')).toBe('cpu');
  });

  it('refuses anything else, naming the setting and the value', () => {
    expect(() => parseSetting('contextSize', '32k')).toThrow(new SettingError('context size must be auto or a whole number from 1 to 1,073,741,824, not "32k".'));
    expect(() => parseSetting('threads', '0')).toThrow('threads must be auto or a whole number from 1 to 1,024, not "0".');
    expect(() => parseSetting('backend', 'cuda')).toThrow('backend must be one of auto, cpu, not "cuda".');
    expect(() => parseSetting('kvCacheType', 'q5_1', '--kv-type')).toThrow('--kv-type must be one of auto, f16, q8_0, q4_0, not "q5_1".');
    expect(() => parseSetting('windowCache', 'swa')).toThrow('window cache must be one of auto, full, checkpoints, not "swa".');
    expect(() => parseSetting('checkpointMemory', '1.5GB')).toThrow('checkpoint memory (MB) must be auto or a whole number from 0 to 1,000,000, not "1.5GB".');
    expect(parseSetting('checkpointMemory', '512')).toBe(512);
    expect(parseSetting('windowCache', 'Checkpoints')).toBe('checkpoints');
    expect(parseSetting('flashAttention', 'Off')).toBe('off');
    expect(() => parseSetting('flashAttention', 'yes')).toThrow('flash attention must be one of auto, on, off, not "yes".');
  });

  it('checks a whole settings object, filling what is left out with auto', () => {
    expect(checkSettings({ contextSize: 4096 })).toEqual({ backend: 'auto', gpuLayers: 'auto', contextSize: 4096, threads: 'auto', kvCacheType: 'auto', checkpointMemory: 'auto', windowCache: 'auto' });
    expect(checkSettings({ flashAttention: 'on' }).flashAttention).toBe('on');
    expect(() => checkSettings({ contextSize: -1 })).toThrow('context size must be auto or a whole number');
    expect(() => checkSettings({ gpu: true })).toThrow('Unknown local engine setting: gpu.');
    expect(() => checkSettings(null)).toThrow('The local engine settings must be an object.');
  });
});
