import fs from 'node:fs';
import path from 'node:path';
import { getLlama, getModuleVersion, GgmlType, Llama, LlamaLogLevel, type GgufInsights, type LlamaContext, type LlamaModel } from 'node-llama-cpp';
import { checkpointBudget } from './cachePlan.js';
import { splitThreads } from './batchThreads.js';
import { backendName, contextOptions, explainMiss, FitError, flashAttentionOption, gpuLayersOption, impossible, modelInsights, planFit, SEQUENCES } from './fit.js';
import { loadDraft, type LoadedDraft } from './draft.js';
import { fileIdentity } from './fileIdentity.js';
import { sameAloneAndInBatch, speculationUsed } from './speculation.js';
import { planThreads } from './threads.js';
import { DEFAULT_LOCAL_SETTINGS, type Backend, type LocalSettings, type LocalSetup } from './localSettings.js';

export type { LocalSettings, LocalSetup };

const llamas = new Map<Backend, Promise<Llama>>();
/** llama.cpp's latest error lines per backend: a failed load says what llama.cpp said. */
const said = new Map<Backend, string[]>();

/**
 * node-llama-cpp's binding for a backend, loaded once each: 'auto' takes the best GPU it has a
 * working prebuilt binary for (Metal, CUDA, Vulkan), else the CPU; 'cpu' never touches a GPU.
 * Never built from source. `true`/`false` are the older spelling of 'auto'/'cpu'.
 */
export function loadLlama(backend: Backend | boolean = 'auto'): Promise<Llama> {
  const key: Backend = backend === true ? 'auto' : backend === false ? 'cpu' : backend;
  let llama = llamas.get(key);
  if (!llama) {
    const lines: string[] = [];
    said.set(key, lines);
    llama = getLlama({
      gpu: key === 'auto' ? 'auto' : false, build: 'never', logLevel: LlamaLogLevel.error,
      logger(level, message) {
        Llama.defaultConsoleLogger(level, message);
        if (!lines.includes(message.trim())) lines.push(message.trim());
        lines.splice(0, lines.length - 3);
      },
    });
    llamas.set(key, llama);
    llama.catch(() => llamas.delete(key));
  }
  return llama;
}

/** A model file that cannot be loaded: its message names the path and why. */
export class ModelFileError extends Error {}

/**
 * The one check of a model file before anything loads it or a session is moved to it (the CLI,
 * the app's picker and switch, the local engine kind): it exists, is a file, and starts as a GGUF
 * does. Returns the absolute path; throws ModelFileError naming it. `note` ends the sentence
 * (the CLI's "(the session's model)").
 */
export function checkModelFile(given: string, note = ''): string {
  const absolute = path.resolve(given);
  if (!fs.existsSync(absolute)) throw new ModelFileError(`The model file ${absolute} does not exist${note}.`);
  if (!fs.statSync(absolute).isFile()) throw new ModelFileError(`The model file ${absolute} is not a file${note}.`);
  const magic = Buffer.alloc(4);
  const fd = fs.openSync(absolute, 'r');
  try {
    fs.readSync(fd, magic, 0, 4, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (magic.toString('latin1') !== 'GGUF') throw new ModelFileError(`The file ${absolute} is not a GGUF model (it does not start with "GGUF")${note}.`);
  return absolute;
}

export interface LoadOptions {
  modelPath: string;
  /** The local engine settings; fields left out are 'auto' (what the machine allows). */
  settings?: Partial<LocalSettings>;
  /** Shorthands over `settings` (older callers, tests): a fixed context size, threads, GPU or not. */
  contextSize?: number;
  /** Threads for evaluation; 1 is far faster for tiny test models on small machines. */
  threads?: number;
  gpu?: boolean;
  onProgress?: (fraction: number) => void;
  /** Where speed measurements are kept (speed.ts speedFolder); left out, `threads: auto` is the rule. */
  speedFolder?: string;
}

/** A loaded GGUF with one context, whose sequences the sessions use. */
export interface LoadedModel {
  path: string;
  /** The model file's identity: a saved KV state is only ever loaded into the same model. */
  identity: string;
  model: LlamaModel;
  context: LlamaContext;
  /** What this load actually used: backend, devices, layers on the GPU, context, KV type… */
  setup: LocalSetup;
  /** Bytes each session may keep in checkpoints, on a model that needs them (cachePlan.ts). */
  checkpointBudget: number;
  /** The draft model whose sequences the sessions draft on, where one is set and usable (draft.ts). */
  draft?: LoadedDraft;
  dispose(): Promise<void>;
}

/** The settings a load uses: defaults, then `settings`, then the shorthands. */
export function settingsOf(o: Omit<LoadOptions, 'modelPath'>): LocalSettings {
  return {
    ...DEFAULT_LOCAL_SETTINGS, ...o.settings,
    ...(o.contextSize !== undefined && { contextSize: o.contextSize }),
    ...(o.threads !== undefined && { threads: o.threads }),
    ...(o.gpu !== undefined && { backend: o.gpu ? 'auto' : 'cpu' }),
  };
}

/**
 * Loads a GGUF with node-llama-cpp's own fitting for whatever is 'auto'. A setting that cannot be
 * used here throws a FitError saying what was asked and what fits; nothing stays loaded then.
 */
export async function loadModel(o: LoadOptions): Promise<LoadedModel> {
  const modelPath = checkModelFile(o.modelPath);
  const settings = settingsOf(o);
  const llama = await loadLlama(settings.backend);
  const insights = await modelInsights(llama, modelPath);
  if (!insights.isSupportedByLlamaCpp) throw new ModelFileError(await unsupported(modelPath, insights));
  const refused = impossible(llama, insights, settings);
  if (refused) throw new FitError(refused);
  // A model that may keep checkpoints is planned first: the window cache is chosen by memory, and the
  // sessions' checkpoint budget is set aside before the context takes what is left (cachePlan.ts).
  const plan = mayCheckpoint(insights) ? await planFit(llama, modelPath, insights, settings, 0, o.speedFolder) : undefined;
  const threads = await planThreads(llama, modelPath, flashAttentionOption(insights, settings.flashAttention), settings, o.speedFolder);
  const options = contextOptions(insights, settings, plan?.cache.fullWindowCache.value ?? true, threads.batchSize?.value);
  const reserved = plan?.cache.budget !== undefined && settings.contextSize === 'auto' && plan.contextSize.value > 0;
  const contextSize = reserved ? { max: plan.contextSize.value } : settings.contextSize;
  said.get(settings.backend)?.splice(0);
  const failed = async (e: unknown) => {
    const explained = await explainMiss(llama, modelPath, insights, settings, e, o.speedFolder);
    const lines = said.get(settings.backend) ?? [];
    return explained === e && e instanceof Error && lines.length ? new Error(`${e.message} (llama.cpp: ${lines.join(' ')})`) : explained;
  };
  const model = await llama.loadModel({
    modelPath, gpuLayers: gpuLayersOption(settings), onLoadProgress: o.onProgress,
    defaultContextFlashAttention: options.flashAttention, defaultContextSwaFullCache: options.swaFullCache,
    experimentalDefaultContextKvCacheKeyType: options.kvCacheKeyType, experimentalDefaultContextKvCacheValueType: options.kvCacheValueType,
  }).catch(async (e: unknown) => {
    throw await failed(e);
  });
  let context: LlamaContext;
  try {
    context = await model.createContext({
      contextSize, sequences: SEQUENCES, threads: Math.max(threads.threads.value, threads.batchThreads?.value ?? 0), batchSize: options.batchSize,
      flashAttention: options.flashAttention, swaFullCache: options.swaFullCache,
      experimentalKvCacheKeyType: options.kvCacheKeyType, experimentalKvCacheValueType: options.kvCacheValueType,
    });
  } catch (e) {
    await model.dispose();
    throw await failed(e);
  }
  const batchThreads = threads.batchThreads && splitThreads(context, threads.threads.value, threads.batchThreads.value) ? threads.batchThreads.value : undefined;
  const strategy = plan?.cache.strategy.value ?? 'prefix';
  // Drafting is measured to leave greedy replies as they are before a session may draft (speculation.ts).
  const measure = speculationUsed(settings.speculation, strategy, context.flashAttention).value !== 'off';
  const speculation = speculationUsed(settings.speculation, strategy, context.flashAttention, measure ? await sameAloneAndInBatch(context, model) : undefined);
  // A draft that cannot be used is none, with its reason: the model runs as it would without one.
  const draft = await loadDraft(llama, settings, speculation, { path: modelPath, model, context });
  const setup: LocalSetup = {
    backend: backendName(llama), devices: await llama.getGpuDeviceNames(), gpuLayers: model.gpuLayers, totalLayers: insights.totalLayers,
    contextSize: context.contextSize, trainContextSize: model.trainContextSize, sequences: SEQUENCES,
    kvCacheType: GgmlType[context.kvCacheKeyType] ?? String(context.kvCacheKeyType),
    flashAttention: context.flashAttention === 'auto' ? 'auto' : context.flashAttention ? 'on' : 'off', threads: batchThreads === undefined ? context.idealThreads : threads.threads.value,
    ...(batchThreads !== undefined && { batchThreads }), ...(threads.batchSize && { batchSize: context.batchSize }),
    cacheStrategy: strategy,
    speculation, ...(settings.draftModel !== undefined && { draft: draft.draft }),
  };
  const budget = checkpointBudget(settings.checkpointMemory).value;
  return {
    path: modelPath,
    identity: fileIdentity(modelPath),
    model,
    context,
    setup,
    checkpointBudget: budget,
    ...(draft.loaded && { draft: draft.loaded }),
    async dispose() {
      await draft.loaded?.context.dispose();
      await draft.loaded?.model.dispose();
      await context.dispose();
      await model.dispose();
    },
  };
}

/** Whether a model's state may need checkpoints: a hybrid, recurrent or sliding-window architecture. */
function mayCheckpoint(insights: GgufInsights): boolean {
  return insights.isHybrid || insights.isRecurrent || insights.swaSize !== undefined;
}

/** A GGUF whose architecture the llama.cpp in this node-llama-cpp does not know: named, with the version. */
async function unsupported(file: string, insights: GgufInsights): Promise<string> {
  const arch = String(insights.ggufFileInfo.metadata?.general?.architecture ?? 'unknown');
  return `The model ${file} has the architecture "${arch}", which the llama.cpp in node-llama-cpp ${await getModuleVersion()} cannot load.`;
}
