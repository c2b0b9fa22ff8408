import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Rule } from '../core/permissions/gate.js';
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
  /**
   * More paths no command may read, the domains approved commands may reach (none by default), and
   * the environment variables commands get besides PATH, HOME, the locale and TERM.
   */
  sandbox?: { denyRead?: string[]; allowedDomains?: string[]; env?: string[] };
  /** The person's permission rules (gate.ts): `{"action": "deny", "tool": "bash", "pattern": "rm"}`. */
  rules?: Rule[];
}

/**
 * The person's rules, checked: a rule that is not `{action: allow|ask|deny, tool, pattern?}` is
 * refused with an error naming it, rather than dropped (a dropped deny would allow silently).
 */
export function permissionRules(dataFolder: string, settings: Settings = readSettings(dataFolder)): Rule[] {
  const rules: unknown = settings.rules ?? [];
  const where = path.join(dataFolder, 'settings.json');
  if (!Array.isArray(rules)) throw new Error(`${where}: "rules" must be a list of {"action", "tool", "pattern"}.`);
  return rules.map((r: unknown, i) => {
    const rule = r as Partial<Rule> | null;
    const ok = !!rule && typeof rule === 'object' && ['allow', 'ask', 'deny'].includes(rule.action as string) && typeof rule.tool === 'string'
      && (rule.pattern === undefined || typeof rule.pattern === 'string');
    if (!ok) throw new Error(`${where}: rules[${i}] ${JSON.stringify(r)} is not {"action": "allow"|"ask"|"deny", "tool": NAME, "pattern"?: TEXT}; nothing was run.`);
    return { action: rule.action!, tool: rule.tool!, ...(rule.pattern === undefined ? {} : { pattern: rule.pattern }) };
  });
}

/** The command sandbox's options: the data folder, and the person's lists (anything but strings is left out). */
export function sandboxOptions(dataFolder: string, settings: Settings = readSettings(dataFolder)): SandboxOptions {
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  return {
    dataFolder, denyRead: strings(settings.sandbox?.denyRead), allowedDomains: strings(settings.sandbox?.allowedDomains),
    env: strings(settings.sandbox?.env),
  };
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
