import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { getLlama, LlamaLogLevel, type Llama, type LlamaContext, type LlamaModel } from 'node-llama-cpp';

let llamaPromise: Promise<Llama> | undefined;

/** The prebuilt CPU (or GPU, where present) binding, loaded once; never built from source here. */
export function loadLlama(gpu: boolean): Promise<Llama> {
  llamaPromise ??= getLlama({ gpu: gpu ? 'auto' : false, build: 'never', logLevel: LlamaLogLevel.error });
  return llamaPromise;
}

export interface LoadOptions {
  modelPath: string;
  contextSize?: number;
  /** Threads for evaluation; 1 is far faster for tiny test models on small machines. */
  threads?: number;
  gpu?: boolean;
  onProgress?: (fraction: number) => void;
}

/** A loaded GGUF with one context, whose sequences the sessions use. */
export interface LoadedModel {
  path: string;
  /** The model file's identity: a saved KV state is only ever loaded into the same model. */
  identity: string;
  model: LlamaModel;
  context: LlamaContext;
  dispose(): Promise<void>;
}

export async function loadModel(o: LoadOptions): Promise<LoadedModel> {
  const modelPath = path.resolve(o.modelPath);
  if (!fs.existsSync(modelPath)) throw new Error(`The model file ${modelPath} does not exist.`);
  const llama = await loadLlama(o.gpu ?? false);
  const model = await llama.loadModel({ modelPath, onLoadProgress: o.onProgress });
  const context = await model.createContext({
    contextSize: o.contextSize ?? Math.min(8192, model.trainContextSize),
    sequences: 4,
    threads: o.threads,
    // Sliding-window models re-read everything unless the full cache is kept (PLATFORM.md).
    swaFullCache: true,
  });
  return {
    path: modelPath,
    identity: fileIdentity(modelPath),
    model,
    context,
    async dispose() {
      await context.dispose();
      await model.dispose();
    },
  };
}

/** Size, and the SHA-256 of the first and last 4 MiB: cheap for a multi-gigabyte file, and enough. */
export function fileIdentity(file: string): string {
  const size = fs.statSync(file).size;
  const chunk = 4 * 1024 * 1024;
  const fd = fs.openSync(file, 'r');
  try {
    const hash = crypto.createHash('sha256').update(String(size));
    for (const at of [0, Math.max(0, size - chunk)]) {
      const buffer = Buffer.alloc(Math.min(chunk, size));
      fs.readSync(fd, buffer, 0, buffer.length, at);
      hash.update(buffer);
    }
    return hash.digest('hex');
  } finally {
    fs.closeSync(fd);
  }
}
