import { createModelDownloader } from 'node-llama-cpp';

/**
 * The small coding model the first-run screen offers: Qwen2.5-Coder 1.5B Instruct, Q4_K_M
 * (about 1 GB), a ChatML model with tool calls. A `hf:` URI that node-llama-cpp resolves.
 */
export const RECOMMENDED_MODEL = 'hf:Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF:Q4_K_M';

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
