import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SandboxOptions } from '../sandbox/policy.js';

/** What the app remembers between starts: its models folder and last model, what saved caches may take, the sandbox's lists. */
export interface Settings {
  modelsFolder: string;
  lastModel?: string;
  /** Bytes all saved KV states may take (default: sized to the disk, see llm/stateFiles.ts). */
  stateBudgetBytes?: number;
  /** More paths no command may read, and the domains approved commands may reach (none by default). */
  sandbox?: { denyRead?: string[]; allowedDomains?: string[] };
}

/** The command sandbox's options: the data folder, and the person's lists (anything but strings is left out). */
export function sandboxOptions(dataFolder: string, settings: Settings = readSettings(dataFolder)): SandboxOptions {
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  return { dataFolder, denyRead: strings(settings.sandbox?.denyRead), allowedDomains: strings(settings.sandbox?.allowedDomains) };
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
