import fs from 'node:fs';
import path from 'node:path';
import type { KeelEvent, ModelFile } from '../contract.js';
import { downloadModel, RECOMMENDED_MODEL } from '../llm/download.js';
import { draftCandidates } from '../llm/draft.js';
import { loadModel, type LoadedModel } from '../llm/model.js';
import { speedFolder } from '../llm/speed.js';
import { Machine } from './machine.js';
import { readSettings, setSetting, writeSettings, type Settings } from './settings.js';

export interface CatalogOptions {
  dataFolder: string;
  emit: (event: KeelEvent) => void;
  threads?: number;
  contextSize?: number;
}

/** The models a person can pick: the models folder, the models loaded (each once), the download. */
export class ModelCatalog {
  private readonly loaded = new Map<string, Promise<LoadedModel>>();
  private current?: string;
  settings: Settings;
  /** The local engine's settings, what each loaded model uses, the doctor (machine.ts). */
  readonly machine: Machine;

  constructor(private readonly o: CatalogOptions) {
    this.settings = readSettings(o.dataFolder);
    this.machine = new Machine({
      saved: () => this.settings.local, save: (local) => this.remember({ local }), overrides: { threads: o.threads, contextSize: o.contextSize },
      speedFolder: speedFolder(o.dataFolder),
    });
  }

  /** The model loaded last in this run, if any. */
  get loadedModel(): string | undefined {
    return this.current;
  }

  /** The folder's GGUFs; those that could draft for the app's model say so (compared by their GGUF's tokenizer, not their names). */
  async list(): Promise<ModelFile[]> {
    const folder = this.settings.modelsFolder;
    if (!fs.existsSync(folder)) return [];
    const files = fs.readdirSync(folder)
      .filter((name) => name.toLowerCase().endsWith('.gguf'))
      .sort()
      .map((name) => ({ path: path.join(folder, name), name, sizeBytes: fs.statSync(path.join(folder, name)).size }));
    const model = this.defaultModel();
    if (model === undefined || !fs.existsSync(model)) return files;
    const drafts = new Set(await draftCandidates(model, files.map((f) => f.path)).catch(() => []));
    return files.map((f) => (drafts.has(f.path) ? { ...f, draftFor: path.resolve(model) } : f));
  }

  setFolder(folder: string): void {
    if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) throw new Error(`${path.resolve(folder)} is not a folder.`);
    this.remember({ modelsFolder: path.resolve(folder) });
  }

  /** Loads a model as the one new sessions use. */
  async choose(file: string): Promise<void> {
    await this.model(file);
    this.current = path.resolve(file);
    this.remember({ lastModel: this.current });
  }

  async download(uri = RECOMMENDED_MODEL): Promise<string> {
    fs.mkdirSync(this.settings.modelsFolder, { recursive: true });
    const file = await downloadModel(uri, this.settings.modelsFolder, (fraction) => this.o.emit({ type: 'model-progress', path: uri, fraction }));
    await this.choose(file);
    return file;
  }

  /** A loaded model, loading it once however many ask at the same time. */
  model(file: string): Promise<LoadedModel> {
    const key = path.resolve(file);
    let loading = this.loaded.get(key);
    if (!loading) {
      loading = loadModel({
        modelPath: key, settings: this.machine.forLoad(), speedFolder: speedFolder(this.o.dataFolder),
        onProgress: (fraction) => this.o.emit({ type: 'model-progress', path: key, fraction }),
      });
      this.loaded.set(key, loading);
      loading.then((m) => {
        this.machine.noteLoaded(m);
        this.o.emit({ type: 'model-loaded', path: key });
      }, () => this.loaded.delete(key));
    }
    return loading;
  }

  /** The model a session without one of its own uses. */
  defaultModel(): string | undefined {
    return this.current ?? this.settings.lastModel;
  }

  /** Saves `fields` into settings.json as it is now: what the person wrote there since (hooks, rules) is kept. */
  remember(fields: Partial<Settings>): void {
    this.settings = { ...readSettings(this.o.dataFolder), ...fields };
    writeSettings(this.o.dataFolder, this.settings);
  }

  /** Sets one setting as the person typed it (settings.ts setSetting: checked, nothing written when refused). */
  set(name: string, typed: string | undefined): void {
    this.settings = setSetting(this.o.dataFolder, name, typed);
  }

  /** Loads the chosen model again (new settings); every session must have given its sequence back first. */
  async reload(): Promise<void> {
    await this.dispose();
    if (this.current) await this.model(this.current);
  }

  async dispose(): Promise<void> {
    for (const [key, loading] of [...this.loaded]) {
      this.loaded.delete(key);
      this.machine.noteGone(key);
      await (await loading.catch(() => undefined))?.dispose();
    }
  }
}
