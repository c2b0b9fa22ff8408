/**
 * The local engine kind: a GGUF file loaded in this process (node-llama-cpp). Its reference is the
 * file's absolute path and the settings it asks beyond the host's; what a session records is the path.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { EngineHost, EngineKind } from '../core/engine/kind.js';
import { LlamaEngine } from './engine.js';
import type { LocalSettings } from './localSettings.js';
import { checkModelFile, loadModel, type LoadedModel } from './model.js';

export interface LocalRef {
  kind: 'local';
  /** The GGUF's absolute path. */
  file: string;
  /** Settings asked for this load (the CLI's flags); left out is the host's, else auto. */
  settings: Partial<LocalSettings>;
}

export interface LocalSource {
  kind: 'local';
  model: LoadedModel;
  /** The bytes saved KV states may take in their folder (the oldest go first). */
  stateBudget?: number;
}

export interface LocalHost extends EngineHost {
  /**
   * Loads the reference's model (the app shares one load among its sessions, the CLI draws a
   * progress bar); without it, the file is loaded here with `progress`.
   */
  loadModel?(ref: LocalRef): Promise<LoadedModel>;
  /** The budget of saved KV states (settings, else the default for the data folder). */
  stateBudget?: number;
}

/** Text that is a URL of any scheme: never a file's path (a server's model is another kind's). */
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

export const localEngine: EngineKind<LocalRef, LocalSource, LocalHost> = {
  kind: 'local',
  parse(id) {
    if (id.trim() === '' || URL_LIKE.test(id)) return undefined;
    return { kind: 'local', file: path.resolve(id), settings: {} };
  },
  id: (ref) => ref.file,
  gone: (ref) => !fs.existsSync(ref.file),
  async connect(ref, host) {
    checkModelFile(ref.file);
    const model = host.loadModel
      ? await host.loadModel(ref)
      : await loadModel({ modelPath: ref.file, settings: ref.settings, onProgress: (f) => host.progress?.(ref.file, f) });
    return { kind: 'local', model, stateBudget: host.stateBudget };
  },
  engine: (source) => new LlamaEngine(source.model, source.stateBudget),
};
