import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SandboxOptions } from '../sandbox/policy.js';
import { checkSettings, type LocalSettings } from '../llm/localSettings.js';

/** What the app remembers between starts: its models folder and last model, local engine settings, what saved caches may take, the sandbox's lists. */
export interface Settings {
  modelsFolder: string;
  lastModel?: string;
  /** Absent: every local engine setting is auto. */
  local?: LocalSettings;
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
