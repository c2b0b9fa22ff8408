/**
 * A draft model (issue 37): a smaller GGUF of the same family guesses the next tokens on a sequence of
 * its own context, and the model checks the guesses in the batch it evaluates anyway
 * (node-llama-cpp's DraftSequenceTokenPredictor). It replaces the lookup in the session's text where
 * the person sets `draftModel`; whether anything is drafted at all is speculation's choice
 * (speculation.ts), so greedy output stays what it is without drafts wherever Keel says it does.
 *
 * A draft is only usable with the very same vocabulary: the model checks token ids, so a draft that
 * numbers its tokens otherwise proposes garbage (llama.cpp refuses it outright). That is judged from
 * the GGUF's metadata, never from the file name.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readGgufFileInfo, type GgufInsights, type Llama, type LlamaContext, type LlamaModel } from 'node-llama-cpp';
import { memoryView, modelInsights, n, SEQUENCES, size } from './fit.js';
import type { Choice, LocalSettings, ModelPlan, Speculation } from './localSettings.js';

/** Tokens drafted at once: a draft model's guesses past a few tokens are seldom all right. */
export const DRAFT_TOKENS = 8;
/**
 * The probability the draft must give its guess to go on guessing (node-llama-cpp's default): a
 * guess it is unsure of is seldom the model's, and each refuted one costs a batch position.
 */
export const DRAFT_MIN_CONFIDENCE = 0.6;

/**
 * llama.cpp's own tolerance (common/speculative.cpp): vocabularies may differ in length by padding
 * tokens at the end, up to this many; every token both have must be the same.
 */
const MAX_SIZE_DIFFERENCE = 128;

/** A GGUF's tokenizer as its metadata gives it: what a draft must share with the model. */
export interface Tokenizer {
  model: string;
  tokens: readonly string[];
  bos?: number;
  eos?: number;
  addBos?: boolean;
}

/** Read from the header only (no weights); cached by path, size and modification time. */
export async function readTokenizer(file: string): Promise<Tokenizer> {
  const stat = fs.statSync(file);
  const key = `${path.resolve(file)}\0${stat.size}\0${stat.mtimeMs}`;
  let read = tokenizers.get(key);
  if (!read) {
    read = readGgufFileInfo(file, { sourceType: 'filesystem', readTensorInfo: false, logWarnings: false }).then(({ metadata }) => {
      const t = (metadata as { tokenizer?: { ggml?: Record<string, unknown> } }).tokenizer?.ggml ?? {};
      return {
        model: String(t.model ?? 'none'), tokens: Array.isArray(t.tokens) ? (t.tokens as string[]) : [],
        bos: t.bos_token_id as number | undefined, eos: t.eos_token_id as number | undefined, addBos: t.add_bos_token as boolean | undefined,
      };
    });
    tokenizers.set(key, read);
    read.catch(() => tokenizers.delete(key));
  }
  return read;
}
const tokenizers = new Map<string, Promise<Tokenizer>>();

/** What differs between two tokenizers, in words (undefined: a draft with `draft` may serve `model`). */
export function tokenizerDifference(model: Tokenizer, draft: Tokenizer): string | undefined {
  if (model.model !== draft.model) return `tokenizer "${model.model}" against "${draft.model}"`;
  if (model.tokens.length === 0 || draft.tokens.length === 0) return 'a vocabulary missing from the metadata';
  if (Math.abs(model.tokens.length - draft.tokens.length) > MAX_SIZE_DIFFERENCE) {
    return `vocabularies of ${n(model.tokens.length)} and ${n(draft.tokens.length)} tokens`;
  }
  const shared = Math.min(model.tokens.length, draft.tokens.length);
  for (let id = 0; id < shared; id++) {
    if (model.tokens[id] !== draft.tokens[id]) return `token ${n(id)}: ${JSON.stringify(model.tokens[id])} against ${JSON.stringify(draft.tokens[id])}`;
  }
  if (model.bos !== draft.bos) return `beginning-of-text token ${model.bos ?? 'none'} against ${draft.bos ?? 'none'}`;
  if (model.eos !== draft.eos) return `end-of-text token ${model.eos ?? 'none'} against ${draft.eos ?? 'none'}`;
  if ((model.addBos ?? false) !== (draft.addBos ?? false)) return `a beginning-of-text token added ${model.addBos ? 'by the model only' : 'by the draft only'}`;
  return undefined;
}

/** Why `draftFile` cannot draft for `modelFile` by its file alone (missing, not smaller, another vocabulary), naming both. */
export async function draftMismatch(modelFile: string, draftFile: string): Promise<string | undefined> {
  const model = path.resolve(modelFile);
  const draft = path.resolve(draftFile);
  if (!fs.existsSync(draft) || !fs.statSync(draft).isFile()) return `The draft model ${draft} does not exist.`;
  if (draft === model) return `The draft model ${draft} is the model itself.`;
  const [ours, theirs] = await Promise.all([readTokenizer(model), readTokenizer(draft).catch(() => undefined)]);
  if (!theirs) return `The draft model ${draft} is not a GGUF node-llama-cpp can read.`;
  const differs = tokenizerDifference(ours, theirs);
  if (differs) return `The draft model ${draft} does not share the tokenizer of ${model} (${differs}): it is from another family.`;
  if (fs.statSync(draft).size >= fs.statSync(model).size) return `The draft model ${draft} is no smaller than ${model}: it could not draft faster than the model decodes.`;
  return undefined;
}

/** The GGUFs among `files` that could draft for `modelFile`: smaller, with its tokenizer. Unreadable files are left out. */
export async function draftCandidates(modelFile: string, files: readonly string[]): Promise<string[]> {
  const usable = await Promise.all(files.map(async (file) => (await draftMismatch(modelFile, file).catch(() => 'unreadable')) === undefined));
  return files.filter((_, i) => usable[i]);
}

/**
 * Whether a load drafts with the set draft model, judged before any memory: no draft set is none; a
 * draft that does not fit the model (draftMismatch) or was trained for fewer tokens than a session
 * holds is refused in words, then one speculation does not use (the file is still checked, so a bad
 * one is said at once). Undefined: try it (the memory decides).
 */
export async function draftRefused(settings: LocalSettings, speculation: Choice<Speculation>, modelFile: string, contextSize: number): Promise<Choice<null> | undefined> {
  if (settings.draftModel === undefined) return { value: null, why: 'none set (the draftModel setting)' };
  const mismatch = await draftMismatch(modelFile, settings.draftModel);
  if (mismatch) return { value: null, why: mismatch };
  const train = (await readGgufFileInfo(settings.draftModel, { sourceType: 'filesystem', readTensorInfo: false, logWarnings: false, ignoreKeys: ['tokenizer.ggml.tokens', 'tokenizer.ggml.scores', 'tokenizer.ggml.token_type', 'tokenizer.ggml.merges'] }))
    .architectureMetadata.context_length;
  if (train !== undefined && train < contextSize) {
    return { value: null, why: `The draft model ${path.resolve(settings.draftModel)} was trained for ${n(train)} tokens, fewer than the ${n(contextSize)} a session holds: its context would be too small.` };
  }
  if (speculation.value === 'off') return { value: null, why: `${path.resolve(settings.draftModel)} not used: speculation is off (${speculation.why})` };
  return undefined;
}

/** The memory a draft takes with a context of `contextSize` tokens for every session, as fit.ts counts the model's. */
export async function draftNeeds(llama: Llama, draftFile: string, contextSize: number, onGpu: boolean): Promise<{ ram: number; vram: number; insights: GgufInsights }> {
  const insights = await modelInsights(llama, draftFile);
  const gpuLayers = onGpu && llama.supportsGpuOffloading ? insights.totalLayers : 0;
  const weights = await insights.estimateModelResourceRequirementsV2({ gpuLayers });
  const context = await insights.estimateContextResourceRequirementsV2({ contextSize, modelGpuLayers: gpuLayers, sequences: SEQUENCES, flashAttention: insights.flashAttentionSupported });
  return { ram: weights.cpuRam + context.cpuRam, vram: weights.gpuVram + context.gpuVram, insights };
}

/**
 * The draft a plan would use where memory is `free` beside the model and its context: the set file
 * where its weights and a context as long as the model's fit, else none and why.
 */
export async function planDraft(
  llama: Llama, settings: LocalSettings, speculation: Choice<Speculation>, modelFile: string, contextSize: number, onGpu: boolean, free: { ram: number; vram: number },
): Promise<{ draft: Choice<string | null>; needs?: { ram: number; vram: number } }> {
  const refused = await draftRefused(settings, speculation, modelFile, contextSize);
  if (refused) return { draft: refused };
  const file = path.resolve(settings.draftModel!);
  const needs = await draftNeeds(llama, file, contextSize, onGpu);
  const short = needs.vram > free.vram ? `${size(needs.vram)} of VRAM, ${size(Math.max(0, free.vram))} free` : needs.ram > free.ram ? `${size(needs.ram)} of RAM, ${size(Math.max(0, free.ram))} free` : undefined;
  if (short) return { draft: { value: null, why: `The draft model ${file} with a ${n(contextSize)}-token context for ${SEQUENCES} sessions needs ${short} beside the model: Keel runs without it.` } };
  return { draft: { value: file, why: `Guesses checked by the model; its weights and context (${size(needs.ram + needs.vram)}) fit beside the model.` }, needs: { ram: needs.ram, vram: needs.vram } };
}

/**
 * A model's plan (fit.ts planFit) with the set draft counted: its choice, and where it fits, its
 * weights and context in the estimate. The memory it may take is what is free less the model's estimate.
 */
export async function planWithDraft(llama: Llama, plan: ModelPlan, settings: LocalSettings, freedVram = 0): Promise<ModelPlan> {
  if (settings.draftModel === undefined || !plan.speculation) return plan;
  if (!plan.estimate) return { ...plan, draft: { value: null, why: 'No context fits for the model, so none for a draft.' } };
  const memory = memoryView(llama, { vram: freedVram });
  const free = { vram: (await memory.getVramState()).free - plan.estimate.vram, ram: (await memory.getRamState()).free - plan.estimate.ram };
  const { draft, needs } = await planDraft(llama, settings, plan.speculation, plan.path, plan.contextSize.value, plan.gpuLayers.value > 0, free);
  return { ...plan, draft, ...(needs && { estimate: { ram: plan.estimate.ram + needs.ram, vram: plan.estimate.vram + needs.vram } }) };
}

/** A loaded draft: its model and a context whose sequences the sessions draft on, one each. */
export interface LoadedDraft {
  model: LlamaModel;
  context: LlamaContext;
  /** DRAFT_MIN_CONFIDENCE; a test's random-weight draft, never confident, takes 0. */
  minConfidence: number;
}

/**
 * Loads the set draft beside a loaded model, on the GPU where the model is, with a context as long as
 * the model's for as many sessions. What refuses it, or a load that fails (memory short, llama.cpp's
 * own check of the two vocabularies), leaves the model running without one: the reason is the choice's.
 */
export async function loadDraft(
  llama: Llama, settings: LocalSettings, speculation: Choice<Speculation>, model: { path: string; model: LlamaModel; context: LlamaContext },
): Promise<{ draft: Choice<string | null>; loaded?: LoadedDraft }> {
  const contextSize = model.context.contextSize;
  const refused = await draftRefused(settings, speculation, model.path, contextSize);
  if (refused) return { draft: refused };
  const file = path.resolve(settings.draftModel!);
  let loaded: LlamaModel | undefined;
  try {
    loaded = await llama.loadModel({ modelPath: file, gpuLayers: model.model.gpuLayers === 0 ? 0 : 'auto' });
    const context = await loaded.createContext({ contextSize, sequences: SEQUENCES, threads: model.context.idealThreads });
    // node-llama-cpp asks llama.cpp the same when a session first drafts, and throws there: asked here, a draft it refuses is none.
    (model.context as unknown as Native)._ctx.ensureDraftContextIsCompatibleForSpeculative((context as unknown as Native)._ctx);
    return { draft: { value: file, why: `Guesses checked by the model, on a ${n(contextSize)}-token context of its own per session.` }, loaded: { model: loaded, context, minConfidence: DRAFT_MIN_CONFIDENCE } };
  } catch (e) {
    await loaded?.dispose();
    return { draft: { value: null, why: `The draft model ${file} could not be loaded beside ${model.path}: ${(e as Error).message}. Keel runs without it.` } };
  }
}

/** node-llama-cpp's binding context (internal, pinned at 3.21.1 as fit.ts's memory view is). */
interface Native {
  _ctx: { ensureDraftContextIsCompatibleForSpeculative(draft: unknown): void };
}
