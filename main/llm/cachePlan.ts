/**
 * How a model's cache is kept reusable here, and what it costs (architecture.ts says what the model
 * is): for a sliding-window model, the full window cache or checkpoints, chosen by memory; for a model
 * that needs checkpoints, their size and the memory budget each session may spend on them. `fit`
 * counts that budget, `keel doctor`, `check-model` and Settings show all of it.
 */
import os from 'node:os';
import type { GgmlType, GgufInsights } from 'node-llama-cpp';
import { architectureOf, needsCheckpoints, strategyOf, strategyWords } from './architecture.js';
import type { CachePlan, Choice, LocalSettings } from './localSettings.js';

type Internal = {
  _getTotalFileLayers(): number;
  _estimateContextCacheMemorySplitInBytes(o: {
    fullAttentionKvSize: number; swaKvSize: number; sequences: number; totalFileLayers: number; finalModelGpuLayers: number;
    usingGpu: boolean; flashAttention: boolean; kvCacheKeyType?: GgmlType; kvCacheValueType?: GgmlType;
  }): { cpuKVCacheSize: number; cpuRecurrentStateSize: number };
};

/**
 * One checkpoint's size: the state node-llama-cpp copies out for it (llama.cpp's partial sequence
 * state) — the recurrent layers' state, and the window layers' cache for one window where the full
 * window cache is not kept. Estimated from the GGUF (node-llama-cpp's own per-layer accounting,
 * internal to 3.21.1); a loaded sequence reports the measured size (SequenceCheckpoints.list).
 */
export function checkpointBytes(insights: GgufInsights, fullWindowCache: boolean, kv?: GgmlType): number {
  const internal = insights as unknown as Internal;
  const window = fullWindowCache ? 0 : insights.swaSize ?? 0;
  const split = internal._estimateContextCacheMemorySplitInBytes({
    fullAttentionKvSize: 0, swaKvSize: window, sequences: 1, totalFileLayers: internal._getTotalFileLayers(),
    finalModelGpuLayers: 0, usingGpu: false, flashAttention: true, kvCacheKeyType: kv, kvCacheValueType: kv,
  });
  return split.cpuKVCacheSize + split.cpuRecurrentStateSize;
}

/** 'auto': a twentieth of this machine's RAM for each session's checkpoints, between 256 MB and 2 GB. */
export function checkpointBudget(setting: LocalSettings['checkpointMemory']): Choice<number> {
  if (setting !== 'auto') return { value: setting * 1e6, why: `Set to ${setting} MB per session.` };
  const value = Math.round(Math.min(2e9, Math.max(256e6, os.totalmem() / 20)));
  return { value, why: 'A twentieth of this machine\'s memory per session, between 256 MB and 2 GB.' };
}

/**
 * Whether a sliding-window model keeps its full window cache: as set, or ('auto') by memory — kept
 * where it costs no context (the context that fits with it is as large as with checkpoints), else
 * checkpoints. `contextWith` resolves the context size that fits either way.
 */
export async function chooseFullWindowCache(
  insights: GgufInsights, setting: LocalSettings['windowCache'], contextWith: (full: boolean) => Promise<number>,
): Promise<Choice<boolean>> {
  if (insights.swaSize === undefined) return { value: true, why: 'The model has no sliding-window layers.' };
  if (setting === 'full') return { value: true, why: 'Set to the full window cache.' };
  if (setting === 'checkpoints') return { value: false, why: 'Set to checkpoints.' };
  const [full, windowed] = await Promise.all([contextWith(true).catch(() => 0), contextWith(false).catch(() => 0)]);
  return full >= windowed
    ? { value: true, why: `The full window cache fits the same context (${full} tokens) as checkpoints would: no checkpoint is needed.` }
    : { value: false, why: `The full window cache would fit ${full} tokens, checkpoints ${windowed}: checkpoints keep the larger context.` };
}

export function cachePlan(insights: GgufInsights, settings: LocalSettings, fullWindowCache: Choice<boolean>, kv?: GgmlType): CachePlan {
  const architecture = architectureOf(insights);
  const strategy = strategyOf(architecture, fullWindowCache.value);
  const plan: CachePlan = { architecture, fullWindowCache, strategy: { value: strategy, why: strategyWords(architecture, strategy) } };
  if (!needsCheckpoints(architecture, fullWindowCache.value)) return plan;
  const bytes = checkpointBytes(insights, fullWindowCache.value, kv);
  const budget = checkpointBudget(settings.checkpointMemory);
  const warning = bytes > budget.value
    ? `One checkpoint takes about ${mb(bytes)}, more than the ${mb(budget.value)} budget: only the latest is kept (the end of the latest prompt), so an undo, an edit, a rewind, or a new message after a reply the template renders otherwise, re-reads everything before it.`
    : undefined;
  return { ...plan, checkpointBytes: bytes, budget, ...(warning && { warning }) };
}

export const mb = (bytes: number) => `${(bytes / 1e6).toFixed(bytes < 10e6 ? 1 : 0)} MB`;
