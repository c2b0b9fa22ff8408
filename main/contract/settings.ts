/**
 * The settings block of the contract (issue 32): every setting of settings.json as its one schema
 * describes it (app/settings.ts), listed and set in the Settings panel as `keel settings` does.
 * contract.ts spreads SETTINGS_CALLS into CONTRACT; values only from leaf modules.
 */
import { TEXT } from './args.js';
import { optional, takes } from './shape.js';

/** One setting: its name, what it is, and its value now (absent: not set). */
export interface SettingView {
  name: string;
  description: string;
  value?: unknown;
}

export const SETTINGS_CALLS = {
  /** Every setting, in the schema's order. */
  settings: takes().as<() => Promise<SettingView[]>>(),
  /**
   * Sets one setting from what the person typed (JSON, or else the text itself); absent removes it.
   * Checked as the file is: a value it cannot hold is refused in words and nothing is written.
   * Returns every setting as it is now. (Sandbox settings apply to commands started after the next start of Keel.)
   */
  setSetting: takes(TEXT, optional(TEXT)).as<(name: string, typed?: string) => Promise<SettingView[]>>(),
};
