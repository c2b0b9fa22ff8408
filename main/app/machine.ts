/**
 * The app's side of the local engine: the saved settings (kept in the service's settings file),
 * what each loaded model actually uses, the doctor report, and applying new settings by loading
 * the model again, with everything put back when the new settings cannot be used.
 */
import path from 'node:path';
import type { DoctorReport, LocalSettings, LocalSettingsText, LocalSetup } from '../contract.js';
import { doctor } from '../llm/doctor.js';
import { checkSettings, DEFAULT_LOCAL_SETTINGS } from '../llm/localSettings.js';
import { FitError } from '../llm/fit.js';
import type { LoadedModel } from '../llm/model.js';

export interface MachineOptions {
  saved(): LocalSettings | undefined;
  save(settings: LocalSettings | undefined): void;
  /** Fixed by whoever started the app (tests, `serve --threads 1`): they win over the saved settings. */
  overrides?: Partial<LocalSettings>;
  /** Where speed measurements are kept (llm/speed.ts speedFolder): `threads: auto` takes what was measured. */
  speedFolder?: string;
}

export class Machine {
  private readonly loaded = new Map<string, LoadedModel>();

  constructor(private readonly o: MachineOptions) {}

  /** The settings as saved, each 'auto' unless the person chose. */
  settings(): LocalSettings {
    return this.o.saved() ?? { ...DEFAULT_LOCAL_SETTINGS };
  }

  /** What a model load uses: the saved settings, then the overrides. */
  forLoad(): LocalSettings {
    return { ...this.settings(), ...this.overrides() };
  }

  private overrides(): Partial<LocalSettings> {
    return Object.fromEntries(Object.entries(this.o.overrides ?? {}).filter(([, v]) => v !== undefined));
  }

  noteLoaded(model: LoadedModel): void {
    this.loaded.set(model.path, model);
  }

  noteGone(file: string): void {
    this.loaded.delete(path.resolve(file));
  }

  setups(): Record<string, LocalSetup> {
    return Object.fromEntries([...this.loaded].map(([file, model]) => [file, model.setup]));
  }

  /** The report for `model`; a model loaded here counts the GPU memory it would give back when loaded again. */
  async doctor(model?: string, settings: LocalSettings = this.forLoad()): Promise<DoctorReport> {
    const loaded = model === undefined ? undefined : this.loaded.get(path.resolve(model));
    const freedVram = loaded ? loaded.model.memoryUsage.vram + loaded.context.memoryUsage.vram : 0;
    return doctor({ settings, modelPath: model, freedVram, speedFolder: this.o.speedFolder });
  }

  /**
   * Checks `given` (worded errors for bad values) and, with `model`, plans it first: settings the
   * plan says cannot be used are refused before anything is unloaded. Then saves them and calls
   * `reload`. When that fails (the plan was too hopeful, a session is answering), the previous
   * settings are saved and loaded again, and the failure goes to the caller.
   */
  async apply(given: LocalSettingsText, reload: () => Promise<void>, model?: string): Promise<LocalSettings> {
    const next = checkSettings(given);
    if (model !== undefined) {
      const plan = await this.doctor(model, { ...next, ...this.overrides() });
      if (plan.model?.problem) throw new FitError(plan.model.problem);
    }
    const before = this.o.saved();
    this.o.save(next);
    try {
      await reload();
    } catch (e) {
      this.o.save(before);
      await reload().catch(() => undefined);
      throw e;
    }
    return next;
  }
}
