/**
 * What a model load would use on this machine, and why: node-llama-cpp's own fitting
 * (GgufInsights' configuration resolver, the code its loadModel and createContext run), asked
 * with Keel's context options, plus the refusals that need no memory figures. `keel doctor`
 * shows the plan; loadModel uses the same options and words its refusals with it.
 */
import fs from 'node:fs';
import { GgmlType, GgufInsights, InsufficientMemoryError, readGgufFileInfo, type Llama } from 'node-llama-cpp';
import { architectureOf, needsCheckpoints } from './architecture.js';
import { cachePlan, checkpointBudget, chooseFullWindowCache } from './cachePlan.js';
import { speculationUsed } from './speculation.js';
import { planThreads } from './threads.js';
import { DEFAULT_LOCAL_SETTINGS, type BackendName, type Choice, type FlashAttention, type LocalSettings, type ModelPlan } from './localSettings.js';

/** Sessions one loaded model serves at once (one context sequence each); each gets the whole context size. */
export const SEQUENCES = 4;

/** Keel's refusal of a setting for a model here: says what was asked and what fits. */
export class FitError extends Error {}

export function backendName(llama: Llama): BackendName {
  return llama.gpu === 'metal' ? 'Metal' : llama.gpu === 'cuda' ? 'CUDA' : llama.gpu === 'vulkan' ? 'Vulkan' : 'CPU';
}

/** The GGUF's header as node-llama-cpp reads it (no weights), with this backend's estimates. */
export async function modelInsights(llama: Llama, file: string): Promise<GgufInsights> {
  return GgufInsights.from(await readGgufFileInfo(file, { sourceType: 'filesystem' }), llama);
}

/** node-llama-cpp's name for the KV cache type; undefined leaves its default (F16). */
export function kvCacheGgml(setting: LocalSettings['kvCacheType']): 'F16' | 'Q8_0' | 'Q4_0' | undefined {
  return setting === 'auto' ? undefined : (setting.toUpperCase() as 'F16' | 'Q8_0' | 'Q4_0');
}

/**
 * Options both node-llama-cpp's loadModel/createContext and the resolver below get, so they agree.
 * `batchSize`: where measured (threads.ts); left out, node-llama-cpp's default.
 */
export function contextOptions(insights: GgufInsights, settings: LocalSettings, fullWindowCache = true, batchSize?: number) {
  const kv = kvCacheGgml(settings.kvCacheType);
  return {
    flashAttention: flashAttentionOption(insights, settings.flashAttention),
    kvCacheKeyType: kv, kvCacheValueType: kv,
    // A sliding-window model keeps its whole cache, or its window and checkpoints (cachePlan.ts).
    swaFullCache: fullWindowCache,
    batchSize,
  };
}

/**
 * node-llama-cpp's flashAttention option: 'auto' leaves it to llama.cpp (used where the model and the
 * device support it: node-llama-cpp's default), true or false by setting; false on a model without it
 * (`impossible` refuses 'on' there).
 */
export function flashAttentionOption(insights: GgufInsights, setting: FlashAttention = 'auto'): 'auto' | boolean {
  if (!insights.flashAttentionSupported) return false;
  return setting === 'auto' ? 'auto' : setting === 'on';
}

function flashAttentionChoice(insights: GgufInsights, setting: FlashAttention = 'auto'): Choice<FlashAttention> {
  if (!insights.flashAttentionSupported) return { value: 'off', why: 'This model\'s architecture does not support it.' };
  return setting === 'auto' ? { value: 'auto', why: 'llama.cpp uses it where the device supports it.' } : { value: setting, why: `Set to ${setting}.` };
}

/** The gpuLayers option for node-llama-cpp: a fixed context size leaves room for exactly that context. */
export function gpuLayersOption(settings: LocalSettings): 'auto' | number | { fitContext: { contextSize: number } } {
  if (settings.gpuLayers !== 'auto') return settings.gpuLayers;
  return settings.contextSize === 'auto' ? 'auto' : { fitContext: { contextSize: settings.contextSize * SEQUENCES } };
}

interface MemoryState { total: number; free: number; unifiedSize: number }
type Getter = () => Promise<MemoryState>;
interface Orchestrators { _vramOrchestrator?: { getMemoryState: Getter }; _ramOrchestrator?: { getMemoryState: Getter }; _swapOrchestrator?: { getMemoryState: Getter } }

/**
 * The memory node-llama-cpp's fitting counts as free: its own bookkeeping (after its safety
 * padding, caps and reservations; for RAM, all memory that is not wired). Those orchestrators are
 * internal to node-llama-cpp (pinned at 3.21.1); without them, the public figures less the padding.
 * `delta` adds to what is free: GPU memory a model already loaded here would give back when loaded
 * again (positive), or what the model's own weights will take before its context is made (negative).
 */
export function memoryView(llama: Llama, delta: { vram?: number; ram?: number } = {}) {
  const o = llama as unknown as Orchestrators;
  const vram: Getter = o._vramOrchestrator ? () => o._vramOrchestrator!.getMemoryState() : async () => {
    const s = await llama.getVramState();
    return { total: s.total, free: Math.max(0, s.free - llama.vramPaddingSize), unifiedSize: s.unifiedSize };
  };
  const ram: Getter = o._ramOrchestrator ? () => o._ramOrchestrator!.getMemoryState() : async () => {
    const s = await llama.getRamState();
    return { total: s.total, free: Math.max(0, s.free - llama.ramPaddingSize), unifiedSize: s.total };
  };
  const swap: Getter = o._swapOrchestrator ? () => o._swapOrchestrator!.getMemoryState() : async () => {
    const s = await llama.getSwapState();
    return { total: s.maxSize, free: s.maxSize - s.used, unifiedSize: s.maxSize };
  };
  const shifted = (get: Getter, by = 0): Getter => async () => {
    const s = await get();
    return { ...s, free: Math.max(0, Math.min(s.total, s.free + by)) };
  };
  return { getVramState: shifted(vram, delta.vram), getRamState: shifted(ram, delta.ram), getSwapState: swap };
}

/**
 * Settings this model can never use here, whatever the memory: a context beyond what it was
 * trained for, GPU layers without a GPU or beyond the model's layers, a quantized KV cache without
 * flash attention. The message says what was asked and what fits.
 */
export function impossible(llama: Llama, insights: GgufInsights, settings: LocalSettings): string | undefined {
  const train = insights.trainContextSize;
  if (typeof settings.contextSize === 'number' && train !== undefined && settings.contextSize > train) {
    return `A ${n(settings.contextSize)}-token context is more than this model was trained for; it takes up to ${n(train)}.`;
  }
  if (typeof settings.gpuLayers === 'number' && settings.gpuLayers > 0 && !llama.supportsGpuOffloading) {
    const why = settings.backend === 'cpu' ? 'the backend is set to CPU' : 'no GPU that node-llama-cpp can use was found';
    return `${n(settings.gpuLayers)} GPU layers were asked, but ${why}; 0 fit.`;
  }
  if (typeof settings.gpuLayers === 'number' && settings.gpuLayers > insights.totalLayers) {
    return `${n(settings.gpuLayers)} GPU layers were asked, but this model has ${n(insights.totalLayers)}; up to ${n(insights.totalLayers)} fit.`;
  }
  if (settings.flashAttention === 'on' && !insights.flashAttentionSupported) {
    return 'Flash attention is set on, but this model\'s architecture does not support it; auto (off for this model) fits.';
  }
  const quantized = settings.kvCacheType === 'q8_0' || settings.kvCacheType === 'q4_0';
  if (quantized && !insights.flashAttentionSupported) {
    return `A ${settings.kvCacheType} KV cache needs flash attention, which this model does not support; f16 fits.`;
  }
  if (quantized && settings.flashAttention === 'off') {
    return `A ${settings.kvCacheType} KV cache needs flash attention, which is set off; f16 fits.`;
  }
  const head = headSize(insights);
  if (quantized && head !== undefined && head % QUANT_BLOCK !== 0) {
    return `A ${settings.kvCacheType} KV cache needs the model's attention head size (${head}) to be a multiple of ${QUANT_BLOCK}; f16 fits.`;
  }
  return undefined;
}

/** q8_0 and q4_0 store values in blocks of 32; llama.cpp refuses a KV cache whose rows do not divide into them. */
const QUANT_BLOCK = 32;

function headSize(insights: GgufInsights): number | undefined {
  const a = insights.ggufFileInfo.architectureMetadata;
  const heads = a?.attention?.head_count;
  return a?.attention?.key_length ?? (heads && a?.embedding_length ? a.embedding_length / heads : undefined);
}

/** The closest settings that `impossible` accepts: the refused ones left to the fitting. */
function possible(llama: Llama, insights: GgufInsights, settings: LocalSettings): LocalSettings {
  const train = insights.trainContextSize;
  return {
    ...settings,
    contextSize: typeof settings.contextSize === 'number' && train !== undefined && settings.contextSize > train ? 'auto' : settings.contextSize,
    gpuLayers: typeof settings.gpuLayers === 'number' && (!llama.supportsGpuOffloading || settings.gpuLayers > insights.totalLayers) ? 'auto' : settings.gpuLayers,
    kvCacheType: settings.kvCacheType !== 'auto' && impossible(llama, insights, { ...DEFAULT_LOCAL_SETTINGS, kvCacheType: settings.kvCacheType, flashAttention: settings.flashAttention }) ? 'auto' : settings.kvCacheType,
    flashAttention: settings.flashAttention === 'on' && !insights.flashAttentionSupported ? 'auto' : settings.flashAttention,
  };
}

/**
 * What loading this model with these settings would use here, each with its reason. A setting
 * that cannot be used becomes `problem` (in words) and the plan shows what fits instead.
 */
export async function planFit(llama: Llama, file: string, insights: GgufInsights, asked: LocalSettings, freedVram = 0, speedFolder?: string): Promise<ModelPlan> {
  const memory = memoryView(llama, { vram: freedVram });
  let problem = impossible(llama, insights, asked);
  const settings = problem ? possible(llama, insights, asked) : asked;
  const threads = await planThreads(llama, file, flashAttentionOption(insights, settings.flashAttention), settings, speedFolder);
  let options = contextOptions(insights, settings, true, threads.batchSize?.value);
  const resolver = insights.configurationResolver;
  const totalLayers = insights.totalLayers;
  const train = insights.trainContextSize ?? 0;
  const vramFree = (await memory.getVramState()).free;

  const resolveLayers = (option: ReturnType<typeof gpuLayersOption>) => resolver.resolveModelGpuLayersV2(option, {
    getVramState: memory.getVramState, defaultContextFlashAttention: options.flashAttention, defaultContextSwaFullCache: options.swaFullCache,
    defaultContextKvCacheKeyType: ggml(options.kvCacheKeyType), defaultContextKvCacheValueType: ggml(options.kvCacheValueType),
  });
  let layers: { gpuLayers: number; useMmap: boolean };
  let layersWhy: string;
  try {
    layers = await resolveLayers(gpuLayersOption(settings));
    layersWhy = !llama.supportsGpuOffloading ? `The ${backendName(llama)} backend keeps every layer in RAM.`
      : settings.gpuLayers !== 'auto' ? `Set to ${n(settings.gpuLayers)}.`
      : layers.gpuLayers >= totalLayers ? `All ${n(totalLayers)} layers fit in free VRAM (${size(vramFree)}) with room for the context.`
      : `${n(layers.gpuLayers)} of ${n(totalLayers)} layers fit in free VRAM (${size(vramFree)}) with room for the context; the rest run on the CPU.`;
  } catch (e) {
    if (!(e instanceof InsufficientMemoryError)) throw e;
    const fits = await resolveLayers('auto').catch(() => ({ gpuLayers: 0, useMmap: true }));
    problem ??= settings.gpuLayers === 'auto'
      ? `This model does not fit in ${size(vramFree)} of free VRAM, not even in part.`
      : `${n(settings.gpuLayers)} GPU layers do not fit in ${size(vramFree)} of free VRAM with this model; up to ${n(fits.gpuLayers)} fit.`;
    layers = fits;
    layersWhy = `The most layers that fit in free VRAM (${size(vramFree)}).`;
  }

  // A context is made once the weights are loaded: their VRAM is no longer free then, and their
  // RAM only counts where a RAM cap is set (node-llama-cpp counts all RAM that is not wired as free).
  const weights = await insights.estimateModelResourceRequirementsV2({ gpuLayers: layers.gpuLayers, useMmap: layers.useMmap });
  // Checkpoints live in RAM: where the model keeps them, every session's budget is set aside first.
  const view = (full: boolean) => memoryView(llama, {
    vram: freedVram - weights.gpuVram,
    ram: (llama.getRamCap() === null ? 0 : -weights.cpuRam) - checkpointReserve(insights, settings, full),
  });
  const resolveWith = (full: boolean, option: LocalSettings['contextSize'] | { max: number }) => resolver.resolveContextContextSize(option, {
    ...options, swaFullCache: full, kvCacheKeyType: ggml(options.kvCacheKeyType), kvCacheValueType: ggml(options.kvCacheValueType),
    modelGpuLayers: layers.gpuLayers, modelTrainContextSize: train, useMmap: layers.useMmap, sequences: SEQUENCES, llamaGpu: llama.gpu, ...view(full),
  });
  const fullWindow = await chooseFullWindowCache(insights, settings.windowCache, (full) => resolveWith(full, settings.contextSize));
  options = contextOptions(insights, settings, fullWindow.value, threads.batchSize?.value);
  const cache = cachePlan(insights, settings, fullWindow, ggml(options.kvCacheKeyType));
  const beside = view(fullWindow.value);
  const resolveContext = (option: LocalSettings['contextSize'] | { max: number }) => resolveWith(fullWindow.value, option);
  const ramBeside = (await beside.getRamState()).free;
  const where = layers.gpuLayers > 0
    ? `the VRAM and RAM free beside the model (${size((await beside.getVramState()).free)} + ${size(ramBeside)})`
    : `the RAM free beside the model (${size(ramBeside)})`;
  let contextSize: Choice<number>;
  try {
    const value = padded(await resolveContext(settings.contextSize), train);
    contextSize = {
      value,
      why: settings.contextSize !== 'auto' ? `Set to ${n(settings.contextSize)} (the model was trained for ${n(train)}).`
        : value >= train ? `The model's trained context (${n(train)} tokens) fits, for ${SEQUENCES} sessions at once, in ${where}.`
        : `The most that fits, for ${SEQUENCES} sessions at once, in ${where}; the model was trained for ${n(train)}.`,
    };
  } catch (e) {
    if (!(e instanceof InsufficientMemoryError)) throw e;
    const fits = settings.contextSize === 'auto' ? undefined
      : await resolveContext({ max: settings.contextSize }).then((v) => padded(v, train), () => undefined);
    problem ??= fits === undefined
      ? ramBeside === 0 ? `This model's weights (${size(weights.cpuRam + weights.gpuVram)}) leave no memory free for a context.` : `No context fits in ${where}, not even a small one.`
      : `A ${n(settings.contextSize as number)}-token context (for ${SEQUENCES} sessions at once) does not fit in ${where}; up to ${n(fits)} fits.`;
    contextSize = { value: fits ?? 0, why: fits === undefined ? 'Nothing fits.' : `The most that fits, for ${SEQUENCES} sessions at once, in ${where}.` };
  }

  const kvName = options.kvCacheKeyType ?? 'F16';
  const used = contextSize.value > 0 ? await estimateUse(insights, weights, layers, contextSize.value, options) : undefined;
  const estimate = used && { ...used, ram: used.ram + checkpointReserve(insights, settings, fullWindow.value) };
  return {
    path: file, sizeBytes: fs.statSync(file).size, totalLayers, trainContextSize: train,
    gpuLayers: { value: layers.gpuLayers, why: layersWhy },
    contextSize,
    kvCacheType: {
      value: kvName,
      why: settings.kvCacheType === 'auto' ? 'node-llama-cpp\'s default. q8_0 or q4_0 hold more context in the same memory; node-llama-cpp calls them experimental.'
        : `Set to ${settings.kvCacheType}.`,
    },
    flashAttention: flashAttentionChoice(insights, settings.flashAttention),
    speculation: speculationUsed(settings.speculation, cache.strategy.value, options.flashAttention),
    ...threads,
    sequences: SEQUENCES, cache, estimate, problem,
  };
}

/** The RAM every session's checkpoints may take together, on a model that keeps them (0 elsewhere). */
export function checkpointReserve(insights: GgufInsights, settings: LocalSettings, fullWindowCache: boolean): number {
  return needsCheckpoints(architectureOf(insights), fullWindowCache) ? checkpointBudget(settings.checkpointMemory).value * SEQUENCES : 0;
}

/** Why loading failed for lack of memory, in words (the plan's problem), else the error as it was. */
export async function explainMiss(llama: Llama, file: string, insights: GgufInsights, settings: LocalSettings, error: unknown, speedFolder?: string): Promise<unknown> {
  if (!(error instanceof InsufficientMemoryError)) return error;
  const plan = await planFit(llama, file, insights, settings, 0, speedFolder).catch(() => undefined);
  return new FitError(plan?.problem ?? `The model does not fit in the memory free here: ${error.message}.`);
}

async function estimateUse(insights: GgufInsights, model: { cpuRam: number; gpuVram: number }, layers: { gpuLayers: number; useMmap: boolean }, contextSize: number, options: ReturnType<typeof contextOptions>) {
  const context = await insights.estimateContextResourceRequirementsV2({
    contextSize, modelGpuLayers: layers.gpuLayers, sequences: SEQUENCES, flashAttention: options.flashAttention, swaFullCache: options.swaFullCache, batchSize: options.batchSize,
    kvCacheKeyType: ggml(options.kvCacheKeyType), kvCacheValueType: ggml(options.kvCacheValueType), useMmap: layers.useMmap,
  });
  return { ram: model.cpuRam + context.cpuRam, vram: model.gpuVram + context.gpuVram };
}

/** createContext rounds a context below the trained size up to a multiple of 256 (llama.cpp's alignment). */
function padded(contextSize: number, train: number): number {
  const up = Math.ceil(Math.max(2, contextSize) / 256) * 256;
  return contextSize <= train && up < train ? up : contextSize;
}

/** The resolver takes GgmlType values where createContext also takes their names. */
function ggml(name: 'F16' | 'Q8_0' | 'Q4_0' | undefined): GgmlType | undefined {
  return name === undefined ? undefined : GgmlType[name];
}

const integer = new Intl.NumberFormat('en-US');
export const n = (value: number): string => integer.format(value);

/** Bytes in decimal units with one decimal, as the app shows sizes: 7.8 GB. */
export function size(bytes: number): string {
  const [unit, scale] = bytes >= 1e12 ? ['TB', 1e12] : bytes >= 1e9 ? ['GB', 1e9] : bytes >= 1e6 ? ['MB', 1e6] : bytes >= 1e3 ? ['kB', 1e3] : ['B', 1];
  return scale === 1 ? `${bytes} B` : `${(bytes / (scale as number)).toFixed(1)} ${unit}`;
}
