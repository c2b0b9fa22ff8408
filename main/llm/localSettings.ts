/**
 * The local engine's settings, what a load actually used, and the doctor's report: plain
 * types and checks with no imports, so the contract (and through it the renderer), the CLI and
 * the app's settings file share one definition.
 */

/** 'auto': node-llama-cpp picks the best GPU it can use (Metal, CUDA, Vulkan), else the CPU. */
export type Backend = 'auto' | 'cpu';
export const BACKENDS: readonly Backend[] = ['auto', 'cpu'];

/**
 * The KV cache's element type, for keys and values alike. 'auto' is node-llama-cpp's default (F16).
 * The quantized ones halve (q8_0) or quarter (q4_0) the cache's memory and need flash attention.
 */
export type KvCacheType = 'auto' | 'f16' | 'q8_0' | 'q4_0';
export const KV_CACHE_TYPES: readonly KvCacheType[] = ['auto', 'f16', 'q8_0', 'q4_0'];

export interface LocalSettings {
  backend: Backend;
  /** Layers on the GPU: 'auto' fits as many as free VRAM allows (node-llama-cpp's fitting). */
  gpuLayers: 'auto' | number;
  /** Tokens per session: 'auto' is the most that fits, up to the model's trained context. */
  contextSize: 'auto' | number;
  /** Evaluation threads: 'auto' is the cores that do math here (fit.ts autoThreads). */
  threads: 'auto' | number;
  kvCacheType: KvCacheType;
  /** Megabytes each session may keep in checkpoints, on a model that needs them (cachePlan.ts); 'auto' from this machine's memory. */
  checkpointMemory: 'auto' | number;
  /** A sliding-window model's cache: every token kept ('full'), or the window with checkpoints; 'auto' chooses by memory. */
  windowCache: WindowCache;
  /**
   * Drafting the next tokens from the session's own text (speculation.ts); 'auto' turns itself off in
   * a session where drafts are seldom accepted. Absent is 'auto'.
   */
  speculation?: Speculation;
  /**
   * A smaller GGUF with the same tokenizer whose guesses the model checks (draft.ts), in place of the
   * lookup in the session's text; absent: none. Used only where speculation is.
   */
  draftModel?: string;
  /**
   * llama.cpp's flash attention kernels: 'auto' uses them where the model and device support them
   * (llama.cpp's choice), 'on' asks for them (refused on a model without them), 'off' never (so
   * `auto` speculation drafts: speculation.ts). Absent is 'auto'.
   */
  flashAttention?: FlashAttention;
}

export type FlashAttention = 'auto' | 'on' | 'off';
export const FLASH_ATTENTIONS: readonly FlashAttention[] = ['auto', 'on', 'off'];

export type Speculation = 'auto' | 'on' | 'off';
export const SPECULATIONS: readonly Speculation[] = ['auto', 'on', 'off'];

export type WindowCache = 'auto' | 'full' | 'checkpoints';
export const WINDOW_CACHES: readonly WindowCache[] = ['auto', 'full', 'checkpoints'];

/** The settings as a form or a call sends them: each as text ('auto', '8192', 'q8_0'); left out is auto. */
export type LocalSettingsText = Partial<Record<keyof LocalSettings, string>>;

/** What the machine allows: every choice left to the fitting. */
export const DEFAULT_LOCAL_SETTINGS: Readonly<LocalSettings> = Object.freeze({
  backend: 'auto', gpuLayers: 'auto', contextSize: 'auto', threads: 'auto', kvCacheType: 'auto', checkpointMemory: 'auto', windowCache: 'auto',
});

/** The compute backend as people name it. */
export type BackendName = 'Metal' | 'CUDA' | 'Vulkan' | 'CPU';

/** What one model load actually used (read back from node-llama-cpp, not from the request). */
export interface LocalSetup {
  backend: BackendName;
  devices: string[];
  gpuLayers: number;
  totalLayers: number;
  /** Tokens per session (context sequence). */
  contextSize: number;
  trainContextSize: number;
  /** Sessions the context holds at once, each with `contextSize` tokens. */
  sequences: number;
  /** GGML type name of the KV cache (keys and values): 'F16', 'Q8_0'… */
  kvCacheType: string;
  /** 'auto': llama.cpp uses it where the device supports it; 'on'/'off' by setting; 'off' too where the model does not support it. */
  flashAttention: FlashAttention;
  /** Threads for decoding (and prefill, unless batchThreads). */
  threads: number;
  /** Threads for prefill, where measured to want another count than decoding (batchThreads.ts). */
  batchThreads?: number;
  /** Tokens a batch, where a measurement chose it. */
  batchSize?: number;
  /** How the cache is kept reusable: on a plain prefix, a full window cache, or checkpoints (cachePlan.ts). */
  cacheStrategy: CacheStrategy;
  /** Whether the sessions draft tokens from their own text ('auto': judged per session), and why (speculation.ts speculationUsed). */
  speculation?: Choice<Speculation>;
  /** The draft model's path where its sessions draft with one (null: none), and why (draft.ts). */
  draft?: Choice<string | null>;
}

/** One decided value and the reason for it, in words. */
export interface Choice<T> {
  value: T;
  why: string;
}

export interface MachineReport {
  /** The backend setting the report was made with. */
  setting: Backend;
  backend: BackendName;
  why: string;
  /** GPU backends node-llama-cpp has binaries for on this platform, usable or not. */
  gpuBackendsShipped: string[];
  devices: string[];
  /**
   * Bytes: total, free as the system reports it, and usable: what node-llama-cpp's fitting counts
   * (after its safety margin; for RAM, all that is not wired). vram is absent without a GPU.
   */
  vram?: { total: number; free: number; usable: number };
  ram: { total: number; free: number; usable: number };
  cpuMathCores: number;
  llamaCpp: string;
}

export interface ModelPlan {
  path: string;
  sizeBytes: number;
  totalLayers: number;
  trainContextSize: number;
  gpuLayers: Choice<number>;
  contextSize: Choice<number>;
  kvCacheType: Choice<string>;
  flashAttention: Choice<FlashAttention>;
  /** Whether sessions would draft tokens from their own text, and why (speculation.ts speculationUsed). */
  speculation?: Choice<Speculation>;
  /** The draft model a load would use (null: none), and why: its tokenizer, trained context and memory (draft.ts). */
  draft?: Choice<string | null>;
  /** Threads for decoding (and prefill, unless batchThreads): set, measured here (threads.ts), or the rule. */
  threads: Choice<number | 'auto'>;
  /** Threads for prefill, where measured to want another count than decoding. */
  batchThreads?: Choice<number>;
  /** Tokens a batch, where measured (node-llama-cpp's default otherwise). */
  batchSize?: Choice<number>;
  sequences: number;
  /** The architecture and how its cache is kept reusable (cachePlan.ts). */
  cache: CachePlan;
  /** Estimated bytes the model and its context take (node-llama-cpp's estimate), checkpoints included. */
  estimate?: { ram: number; vram: number };
  /** Why these settings cannot be used with this model here, in words; the choices above are then what fits. */
  problem?: string;
}

/** A model's architecture as far as its cache goes (architecture.ts reads it from the GGUF). */
export type ArchitectureClass = 'transformer' | 'sliding window' | 'hybrid' | 'recurrent';

export interface Architecture {
  /** `general.architecture` as the GGUF names it. */
  name: string;
  class: ArchitectureClass;
  /** The attention window of the sliding-window layers, in tokens. */
  window?: number;
  /** Whether llama.cpp as node-llama-cpp ships it knows this architecture. */
  supported: boolean;
}

/**
 * How the local engine keeps a prefix reusable: `prefix` (nothing to do), `full window cache` (a
 * sliding-window model keeping every token of its window layers), `checkpoints` (snapshots of the
 * state that cannot be cut back, taken where Keel knows the next request can depart).
 */
export type CacheStrategy = 'prefix' | 'full window cache' | 'checkpoints';

/** How a model's cache is kept reusable here and what that costs (cachePlan.ts). */
export interface CachePlan {
  architecture: Architecture;
  /** Whether a sliding-window model keeps every token of its window layers (node-llama-cpp's swaFullCache). */
  fullWindowCache: Choice<boolean>;
  strategy: Choice<CacheStrategy>;
  /** Estimated bytes of one checkpoint (node-llama-cpp keeps them in RAM), where checkpoints are kept. */
  checkpointBytes?: number;
  /** Bytes each session may keep in checkpoints, where they are kept. */
  budget?: Choice<number>;
  /** Where the budget holds no checkpoint at all: the cost per turn paid instead. */
  warning?: string;
}

export interface DoctorReport {
  settings: LocalSettings;
  /** The values the backend, KV cache, window cache, speculation and flash attention settings take, for a form to offer. */
  options: {
    backends: readonly Backend[]; kvCacheTypes: readonly KvCacheType[]; windowCaches: readonly WindowCache[]; speculations?: readonly Speculation[];
    flashAttentions?: readonly FlashAttention[];
  };
  machine: MachineReport;
  model?: ModelPlan;
}

/** A bad setting: the message names the setting, what was given and what is allowed. */
export class SettingError extends Error {}

const LIMITS = { gpuLayers: [0, 100_000], contextSize: [1, 1 << 30], threads: [1, 1024], checkpointMemory: [0, 1_000_000] } as const;

const NAMES: Record<keyof LocalSettings, string> = {
  backend: 'backend', gpuLayers: 'GPU layers', contextSize: 'context size', threads: 'threads', kvCacheType: 'KV cache type',
  checkpointMemory: 'checkpoint memory (MB)', windowCache: 'window cache', speculation: 'speculation',
  draftModel: 'draft model', flashAttention: 'flash attention',
};

/** One setting from text (a CLI flag, a form field): 'auto' or a whole number in range, or one of the names. */
export function parseSetting<K extends keyof LocalSettings>(key: K, given: string, label: string = NAMES[key]): LocalSettings[K] {
  // A path keeps its case; empty is none (a form's cleared field). Whether it is a usable draft is the load's to say (draft.ts).
  if (key === 'draftModel') return (given.trim() || undefined) as LocalSettings[K];
  const text = given.trim().toLowerCase();
  if (key === 'backend') return oneOf(label, text, BACKENDS, given) as LocalSettings[K];
  if (key === 'kvCacheType') return oneOf(label, text, KV_CACHE_TYPES, given) as LocalSettings[K];
  if (key === 'windowCache') return oneOf(label, text, WINDOW_CACHES, given) as LocalSettings[K];
  if (key === 'speculation') return oneOf(label, text, SPECULATIONS, given) as LocalSettings[K];
  if (key === 'flashAttention') return oneOf(label, text, FLASH_ATTENTIONS, given) as LocalSettings[K];
  if (text === 'auto') return 'auto' as LocalSettings[K];
  const [min, max] = LIMITS[key as keyof typeof LIMITS];
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new SettingError(`${label} must be auto or a whole number from ${min} to ${max.toLocaleString('en-US')}, not "${given}".`);
  }
  return Number(text) as LocalSettings[K];
}

function oneOf(label: string, text: string, allowed: readonly string[], given: string): string {
  if (!allowed.includes(text)) throw new SettingError(`${label} must be one of ${allowed.join(', ')}, not "${given}".`);
  return text;
}

/** Checks a whole settings object from outside (the UI, settings.json): each field as parseSetting takes it. */
export function checkSettings(given: unknown): LocalSettings {
  if (typeof given !== 'object' || given === null || Array.isArray(given)) throw new SettingError('The local engine settings must be an object.');
  const fields = given as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(NAMES) as (keyof LocalSettings)[]) {
    const value = fields[key] ?? DEFAULT_LOCAL_SETTINGS[key];
    // A setting without a default (speculation, flash attention) is left out where it is not given: it means 'auto'.
    if (value === undefined) continue;
    if (typeof value !== 'string' && typeof value !== 'number') throw new SettingError(`${NAMES[key]} must be text or a number, not ${JSON.stringify(value)}.`);
    const parsed = parseSetting(key, String(value));
    if (parsed !== undefined) out[key] = parsed;
  }
  const unknown = Object.keys(fields).filter((k) => !(k in NAMES));
  if (unknown.length) throw new SettingError(`Unknown local engine setting${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}.`);
  return out as unknown as LocalSettings;
}
