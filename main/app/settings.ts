import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** What the app remembers between starts: its models folder and last model, and what saved caches may take. */
export interface Settings {
  modelsFolder: string;
  lastModel?: string;
  /** Bytes all saved KV states may take (default: sized to the disk, see llm/stateFiles.ts). */
  stateBudgetBytes?: number;
}

export function readSettings(dataFolder: string): Settings {
  const file = path.join(dataFolder, 'settings.json');
  const defaults: Settings = { modelsFolder: path.join(os.homedir(), 'models') };
  try {
    return { ...defaults, ...(JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<Settings>) };
  } catch {
    return defaults;
  }
}

export function writeSettings(dataFolder: string, settings: Settings): void {
  fs.mkdirSync(dataFolder, { recursive: true });
  const file = path.join(dataFolder, 'settings.json');
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(settings, null, 2));
  fs.renameSync(`${file}.tmp`, file);
}
