import fs from 'node:fs';
import path from 'node:path';
import type { LocalSettings } from '../../llm/localSettings.js';
import { loadModel, type LoadedModel } from '../../llm/model.js';
import { progressBar } from '../format.js';
import { CliError, type Writer } from '../io.js';

/** The local engine's settings as flags: each flag and the setting it gives. */
export const LOCAL_FLAGS = {
  backend: 'backend', 'gpu-layers': 'gpuLayers', context: 'contextSize', threads: 'threads', 'kv-type': 'kvCacheType',
} as const satisfies Record<string, keyof LocalSettings>;

export interface ModelFlags {
  /** The local engine settings given as flags (--backend, --gpu-layers, --context, --threads, --kv-type). */
  local?: Partial<LocalSettings>;
  /** Shorthands over `local` (tests). */
  threads?: number;
  contextSize?: number;
  gpu?: boolean;
}

/** The model file as an absolute path, refused with that path when it is missing or not a file. */
export function modelFile(given: string, note = ''): string {
  const absolute = path.resolve(given);
  if (!fs.existsSync(absolute)) throw new CliError(`The model file ${absolute} does not exist${note}.`);
  if (!fs.statSync(absolute).isFile()) throw new CliError(`The model file ${absolute} is not a file${note}.`);
  return absolute;
}

/** Loads a GGUF, drawing its progress on `err`. */
export async function openModel(absolute: string, flags: ModelFlags, err: Writer): Promise<LoadedModel> {
  const bar = progressBar(err, absolute);
  try {
    return await loadModel({
      modelPath: absolute, settings: flags.local, threads: flags.threads, contextSize: flags.contextSize, gpu: flags.gpu,
      onProgress: (f) => bar.update(f),
    });
  } catch (e) {
    throw new CliError(`Keel could not load the model ${absolute}: ${(e as Error).message}`);
  } finally {
    bar.done();
  }
}
