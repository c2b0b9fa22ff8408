import { createModelDownloader } from 'node-llama-cpp';

/**
 * The model the first-run screen offers (renderer/src/components/FirstRun.tsx names it): Qwen3.5 4B,
 * Q4_K_M (about 2.7 GB; 4.2B weights), a 2026 model with reasoning and tool calls that runs on a
 * laptop's CPU or a small GPU. Its architecture, `qwen35` (Gated DeltaNet beside attention: hybrid),
 * is one node-llama-cpp 3.21.1's llama.cpp loads — the generated qwen35 test model shows it
 * (main/llm/testModel/architectureModels.test.ts) — and Keel keeps its cache with checkpoints
 * (checkpoints.ts). A `hf:` URI that node-llama-cpp resolves.
 */
export const RECOMMENDED_MODEL = 'hf:unsloth/Qwen3.5-4B-GGUF:Q4_K_M';

/**
 * Downloads a model into the models folder with node-llama-cpp's downloader (parallel
 * connections; an interrupted download resumes where it stopped). Needs the network, so it
 * cannot run on an offline machine: the error then says so. Returns the file's path.
 */
export async function downloadModel(uri: string, folder: string, onProgress: (fraction: number) => void, signal?: AbortSignal): Promise<string> {
  const downloader = await createModelDownloader({
    modelUri: uri,
    dirPath: folder,
    skipExisting: true,
    onProgress: ({ totalSize, downloadedSize }) => onProgress(totalSize > 0 ? downloadedSize / totalSize : 0),
  });
  signal?.addEventListener('abort', () => void downloader.cancel({ deleteTempFile: false }));
  try {
    return await downloader.download();
  } catch (err) {
    throw new Error(`The model ${uri} could not be downloaded into ${folder}: ${(err as Error).message}. Downloading needs a network connection; you can also choose a GGUF file you already have.`);
  }
}
