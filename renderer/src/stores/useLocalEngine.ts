import { create } from 'zustand';
import type { DoctorReport, LocalSettings, LocalSettingsText } from '../../../main/contract.js';
import { getApi } from '../api.js';
import { useModel } from './useModel.js';

interface LocalEngineState {
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

/** The Settings panel's data: everything comes from main, nothing is computed here. */
export const useLocalEngine = create<LocalEngineState>()((set, get) => ({
  loading: false,
  saving: false,
  async load() {
    set({ loading: true, error: undefined });
    try {
      const [settings, report] = await Promise.all([getApi().localSettings(), getApi().doctor()]);
      set({ settings, report });
    } catch (err) {
      set({ error: (err as Error).message });
    } finally {
      set({ loading: false });
    }
  },
  async save(given) {
    set({ saving: true, error: undefined });
    try {
      const settings = await getApi().setLocalSettings(given);
      set({ settings });
      await Promise.all([useModel.getState().refreshState(), get().load()]);
      return true;
    } catch (err) {
      set({ error: (err as Error).message });
      return false;
    } finally {
      set({ saving: false });
    }
  },
}));
