import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkSettings, type LocalSettings } from '../llm/localSettings.js';

/** What the app remembers between starts: its models folder, last model and local engine settings. */
export interface Settings {
  modelsFolder: string;
  lastModel?: string;
  /** Absent: every local engine setting is auto. */
  local?: LocalSettings;
}

export function readSettings(dataFolder: string): Settings {
  const file = path.join(dataFolder, 'settings.json');
  const defaults: Settings = { modelsFolder: path.join(os.homedir(), 'models') };
  let saved: Partial<Settings>;
  try {
    saved = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<Settings>;
  } catch {
    return defaults;
  }
  // Local engine settings edited by hand into something Keel cannot use fall back to auto.
  let local: LocalSettings | undefined;
  try {
    local = saved.local === undefined ? undefined : checkSettings(saved.local);
  } catch {
    local = undefined;
  }
  return { ...defaults, ...saved, local };
}

export function writeSettings(dataFolder: string, settings: Settings): void {
  fs.mkdirSync(dataFolder, { recursive: true });
  const file = path.join(dataFolder, 'settings.json');
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(settings, null, 2));
  fs.renameSync(`${file}.tmp`, file);
}
