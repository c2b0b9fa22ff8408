/**
 * `keel doctor` and the app's Settings panel: the compute backend node-llama-cpp uses here, its
 * devices and free memory, and for a model file what a load would use and why (fit.ts). It
 * loads no weights: only the binding and the GGUF's header.
 */
import fs from 'node:fs';
import path from 'node:path';
import { getLlamaGpuTypes, type Llama } from 'node-llama-cpp';
import { planWithDraft } from './draft.js';
import { backendName, memoryView, modelInsights, planFit } from './fit.js';
import { BACKENDS, FLASH_ATTENTIONS, KV_CACHE_TYPES, SPECULATIONS, WINDOW_CACHES, type Backend, type DoctorReport, type LocalSettings, type MachineReport } from './localSettings.js';
import { loadLlama, settingsOf } from './model.js';

export interface DoctorOptions {
  settings?: Partial<LocalSettings>;
  modelPath?: string;
  /** GPU memory the model already loaded from `modelPath` would give back when loaded again (the app). */
  freedVram?: number;
  /** Where speed measurements are kept (speed.ts speedFolder); left out, `threads: auto` is the rule. */
  speedFolder?: string;
}

export async function doctor(o: DoctorOptions = {}): Promise<DoctorReport> {
  const settings = settingsOf({ settings: o.settings });
  const llama = await loadLlama(settings.backend);
  const machine = await machineReport(llama, settings.backend);
  const options = { backends: BACKENDS, kvCacheTypes: KV_CACHE_TYPES, windowCaches: WINDOW_CACHES, speculations: SPECULATIONS, flashAttentions: FLASH_ATTENTIONS };
  if (o.modelPath === undefined) return { settings, options, machine };
  const file = path.resolve(o.modelPath);
  if (!fs.existsSync(file)) throw new Error(`The model file ${file} does not exist.`);
  if (!fs.statSync(file).isFile()) throw new Error(`The model file ${file} is not a file.`);
  const insights = await modelInsights(llama, file).catch((e: Error) => {
    throw new Error(`${file} is not a GGUF model node-llama-cpp can read: ${e.message}`);
  });
  const plan = await planFit(llama, file, insights, settings, o.freedVram, o.speedFolder);
  return { settings, options, machine, model: await planWithDraft(llama, plan, settings, o.freedVram) };
}

async function machineReport(llama: Llama, setting: Backend): Promise<MachineReport> {
  const shipped = (await getLlamaGpuTypes('allValid')).filter((t): t is Exclude<typeof t, false> => t !== false);
  const devices = await llama.getGpuDeviceNames();
  const backend = backendName(llama);
  const named = shipped.map((t) => (t === 'cuda' ? 'CUDA' : t === 'vulkan' ? 'Vulkan' : 'Metal'));
  const why = setting === 'cpu' ? 'The backend is set to CPU.'
    : backend !== 'CPU' ? `node-llama-cpp chose ${backend}, the best GPU backend that works here.`
    : named.length === 0 ? 'node-llama-cpp has no GPU builds for this platform; the CPU runs the model.'
    : `node-llama-cpp looked for ${named.join(' and ')} and found no usable GPU; the CPU runs the model.`;
  const memory = memoryView(llama);
  const ram = await llama.getRamState();
  const vram = llama.supportsGpuOffloading ? await llama.getVramState() : undefined;
  return {
    setting, backend, why, gpuBackendsShipped: shipped, devices,
    vram: vram && { total: vram.total, free: vram.free, usable: (await memory.getVramState()).free },
    ram: { total: ram.total, free: ram.free, usable: (await memory.getRamState()).free },
    cpuMathCores: llama.cpuMathCores,
    llamaCpp: llama.llamaCppRelease.release,
  };
}
