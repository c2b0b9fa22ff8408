import type { LocalSettings } from '../../llm/localSettings.js';
import { checkModelFile, loadModel, ModelFileError, type LoadedModel } from '../../llm/model.js';
import { speedFolder } from '../../llm/speed.js';
import { keelHome } from '../../keelHome.js';
import { progressBar } from '../format.js';
import { CliError, type Writer } from '../io.js';

/** The local engine's settings as flags: each flag and the setting it gives. */
export const LOCAL_FLAGS = {
  backend: 'backend', 'gpu-layers': 'gpuLayers', context: 'contextSize', threads: 'threads', 'kv-type': 'kvCacheType',
  'checkpoint-memory': 'checkpointMemory', 'window-cache': 'windowCache', 'draft-model': 'draftModel', 'flash-attention': 'flashAttention',
} as const satisfies Record<string, keyof LocalSettings>;

export interface ModelFlags {
  /** The local engine settings given as flags (--backend, --gpu-layers, --context, --threads, --kv-type, --checkpoint-memory, --window-cache, --draft-model, --flash-attention). */
  local?: Partial<LocalSettings>;
  /** Shorthands over `local` (tests). */
  threads?: number;
  contextSize?: number;
  gpu?: boolean;
}

/** The model file as an absolute path, refused with that path when it is missing or not a file. */
export function modelFile(given: string, note = ''): string {
  try {
    return checkModelFile(given, note);
  } catch (e) {
    throw e instanceof ModelFileError ? new CliError(e.message) : e;
  }
}

/** Loads a GGUF, drawing its progress on `err`. */
export async function openModel(absolute: string, flags: ModelFlags, err: Writer): Promise<LoadedModel> {
  const bar = progressBar(err, absolute);
  let loaded: LoadedModel;
  try {
    loaded = await loadModel({
      modelPath: absolute, settings: flags.local, threads: flags.threads, contextSize: flags.contextSize, gpu: flags.gpu,
      onProgress: (f) => bar.update(f), speedFolder: speedFolder(keelHome()),
    });
  } catch (e) {
    // "Loaded" only once it has: a failed load ends the bar's line and says why, naming the file.
    bar.failed();
    throw new CliError(e instanceof ModelFileError ? e.message : `Keel could not load the model ${absolute}: ${(e as Error).message}`);
  }
  bar.done();
  return loaded;
}
