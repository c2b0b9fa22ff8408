import type { AppState, ModelFile } from '../../../../main/contract.js';
import type { SliceContext } from '../slice.js';

export interface ModelSlice {
  app?: AppState;
  models: ModelFile[];
  /** The GGUF being loaded and how far (from `model-progress` events). */
  progress?: { path: string; fraction: number };
  refreshState(): Promise<void>;
  refreshModels(): Promise<void>;
  setFolder(folder: string): Promise<boolean>;
  /** Makes a GGUF the app's model; true when it loaded. */
  load(path: string): Promise<boolean>;
  /** Downloads the recommended model into the models folder and loads it; true when it did. */
  download(): Promise<boolean>;
  /** Moves a session to another model (loading it first). */
  switchTo(sessionId: number, path: string): Promise<boolean>;
  onProgress(path: string, fraction: number): void;
  onLoaded(path: string): void;
}

/** The app's model, the models folder's GGUFs, and loading progress. */
export function modelSlice({ get, set, call }: SliceContext<ModelSlice>): ModelSlice {
  /** Model work with a progress bar: true when it succeeded; a failure is reported, never thrown. */
  const withProgress = async (path: string, work: Parameters<typeof call>[0]): Promise<boolean> => {
    set({ progress: { path, fraction: 0 } });
    const got = await call(work, { about: 'model' });
    if (got.ok) await Promise.all([get().refreshState(), get().refreshModels()]);
    set({ progress: undefined });
    return got.ok;
  };
  return {
    models: [],
    async refreshState() {
      const got = await call((api) => api.getState());
      if (got.ok) set({ app: got.value });
    },
    async refreshModels() {
      const got = await call((api) => api.listModels());
      if (got.ok) set({ models: got.value });
    },
    async setFolder(folder) {
      const got = await call((api) => api.setModelsFolder(folder), { about: 'model' });
      if (got.ok) await Promise.all([get().refreshState(), get().refreshModels()]);
      return got.ok;
    },
    load: (path) => withProgress(path, (api) => api.loadModel(path)),
    download: () => withProgress('the recommended model', (api) => api.downloadModel()),
    switchTo: (sessionId, path) => withProgress(path, (api) => api.switchModel(sessionId, path)),
    onProgress: (path, fraction) => set({ progress: { path, fraction } }),
    onLoaded(path) {
      set((s) => ({ progress: s.progress?.path === path ? undefined : s.progress }));
      void get().refreshState();
    },
  };
}
