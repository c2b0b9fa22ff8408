import type { DoctorReport, LocalSettings, LocalSettingsText } from '../../../../main/contract.js';
import type { SliceContext } from '../../stores/slice.js';
import type { ModelSlice } from '../../stores/slices/model.js';

export interface LocalEngineSlice {
  settings?: LocalSettings;
  report?: DoctorReport;
  loading: boolean;
  saving: boolean;
  /** Main's words for the last failure (a setting refused, a report that could not be made). */
  error?: string;
  /** Reads the saved settings and the doctor report for the app's model. */
  load(): Promise<void>;
  /** Saves the settings; main loads the model again with them. True when they were taken. */
  save(settings: LocalSettingsText): Promise<boolean>;
}

/** A panel's slice: the store's type learns its key here (stores/slice.ts), its line in components/panels.ts makes it. */
declare module '../../stores/slice.js' {
  interface PanelSlices {
    localEngine: LocalEngineSlice;
  }
}

/** The Settings panel's data: everything comes from main, nothing is computed here. Failures show in the panel. */
export function localEngineSlice({ get, set, root, call }: SliceContext<LocalEngineSlice, { model: ModelSlice }>): LocalEngineSlice {
  return {
    loading: false,
    saving: false,
    async load() {
      set({ loading: true, error: undefined });
      const got = await call((api) => Promise.all([api.localSettings(), api.doctor()]), { quiet: true });
      set(got.ok ? { settings: got.value[0], report: got.value[1], loading: false } : { error: got.error, loading: false });
    },
    async save(given) {
      set({ saving: true, error: undefined });
      const got = await call((api) => api.setLocalSettings(given), { quiet: true });
      if (got.ok) {
        set({ settings: got.value });
        await Promise.all([root().model.refreshState(), get().load()]);
      } else set({ error: got.error });
      set({ saving: false });
      return got.ok;
    },
  };
}
