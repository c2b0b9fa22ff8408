import { create } from 'zustand';
import type { AppState, ModelFile } from '../../../main/contract.js';
import { getApi } from '../api.js';
import { report } from './useErrors.js';

interface ModelState {
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

export const useModel = create<ModelState>()((set, get) => ({
  models: [],
  async refreshState() {
    try {
      set({ app: await getApi().getState() });
    } catch (err) {
      report(err);
    }
  },
  async refreshModels() {
    try {
      set({ models: await getApi().listModels() });
    } catch (err) {
      report(err);
    }
  },
  async setFolder(folder) {
    try {
      await getApi().setModelsFolder(folder);
      await Promise.all([get().refreshState(), get().refreshModels()]);
      return true;
    } catch (err) {
      report(err);
      return false;
    }
  },
  load: (path) => withProgress(path, () => getApi().loadModel(path)),
  download: () => withProgress('the recommended model', () => getApi().downloadModel()),
  switchTo: (sessionId, path) => withProgress(path, () => getApi().switchModel(sessionId, path)),
  onProgress: (path, fraction) => set({ progress: { path, fraction } }),
  onLoaded(path) {
    set((s) => ({ progress: s.progress?.path === path ? undefined : s.progress }));
    void get().refreshState();
  },
}));

/** Model work with a progress bar: true when it succeeded; a failure is reported, never thrown. */
async function withProgress(path: string, work: () => Promise<unknown>): Promise<boolean> {
  useModel.setState({ progress: { path, fraction: 0 } });
  try {
    await work();
    await Promise.all([useModel.getState().refreshState(), useModel.getState().refreshModels()]);
    return true;
  } catch (err) {
    report(err);
    return false;
  } finally {
    useModel.setState({ progress: undefined });
  }
}
