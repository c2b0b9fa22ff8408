import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { Rule } from '../core/permissions/gate.js';
import type { SandboxOptions } from '../sandbox/policy.js';
import { checkSettings, type LocalSettings } from '../llm/localSettings.js';
import { describeIssue } from '../core/zodIssues.js';
import type { SettingView } from '../contract.js';

/** settings.json that Keel cannot use: the message names the file and the field, and says nothing was changed. */
export class SettingsError extends Error {}

const texts = z.array(z.string({ error: 'expected text' }));
const RULE = z.strictObject({
  action: z.enum(['allow', 'ask', 'deny']),
  tool: z.string(),
  pattern: z.string().optional(),
});

/**
 * What the app remembers between starts, as the person writes settings.json: each setting is one
 * field here, its check, its type (`Settings`) and what it is (`keel settings` lists and sets them). Keys Keel does not read (`hooks`, which
 * core/hooks checks, and whatever else a file copied from another tool holds) are kept as they are
 * and written back. `local` is checked by llm/localSettings.ts, whose messages the settings form shows.
 */
const FIELDS = z.object({
  modelsFolder: z.string().optional().describe('Where the model picker looks for GGUF files (default ~/models).'),
  lastModel: z.string().optional().describe('The model last loaded: a GGUF file, or a server\'s server:URL#model.'),
  local: z.unknown().optional().describe('The local engine\'s settings (backend, gpuLayers, context, threads…; keel --help); absent: every one is auto.'),
  stateBudgetBytes: z.number().int().positive().optional()
    .describe('Bytes all saved KV caches may take together (default: sized to the disk).'),
  sandbox: z.strictObject({ denyRead: texts.optional(), allowedDomains: texts.optional(), env: texts.optional() }).optional()
    .describe('The command sandbox: more paths no command may read (denyRead), the domains approved commands may reach (allowedDomains), the variables commands get besides PATH, HOME, the locale and TERM (env).'),
  rules: z.array(RULE).optional()
    .describe('Permission rules, e.g. [{"action": "deny", "tool": "bash", "pattern": "rm"}] (action: allow, ask or deny).'),
  askAboveSeconds: z.number().nonnegative().optional()
    .describe('Ask before an action whose cache break would take longer than this many seconds to re-read; absent: never ask.'),
});
const SETTINGS = FIELDS.loose();

/** The settings as read: FIELDS, with the models folder's default and `local` checked. */
export type Settings = Omit<z.infer<typeof FIELDS>, 'modelsFolder' | 'local'> & { modelsFolder: string; local?: LocalSettings };

const fileOf = (dataFolder: string) => path.join(dataFolder, 'settings.json');

/** The person's rules (gate.ts), from a file readSettings checked. */
export function permissionRules(dataFolder: string, settings: Settings = readSettings(dataFolder)): Rule[] {
  return settings.rules ?? [];
}

/** The command sandbox's options: the data folder, and the person's lists. */
export function sandboxOptions(dataFolder: string, settings: Settings = readSettings(dataFolder)): SandboxOptions {
  const { denyRead = [], allowedDomains = [], env = [] } = settings.sandbox ?? {};
  return { dataFolder, denyRead, allowedDomains, env };
}

/**
 * `<dataFolder>/settings.json`, checked; no file is the defaults. A file that is not JSON, or
 * whose fields are not what Keel reads, throws a SettingsError naming the file and the field
 * (nothing is written over it). Local engine settings Keel cannot use fall back to auto (the
 * settings form says why when it is opened), as they always have.
 */
export function readSettings(dataFolder: string): Settings {
  const file = fileOf(dataFolder);
  const defaults: Settings = { modelsFolder: path.join(os.homedir(), 'models') };
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return defaults;
    throw new SettingsError(`${file} cannot be read (${(err as Error).message}); Keel changed nothing.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new SettingsError(`${file} is not valid JSON (${(err as Error).message}): fix it or move it away; Keel changed nothing.`);
  }
  const parsed = SETTINGS.safeParse(json);
  if (!parsed.success) {
    throw new SettingsError(`${file}: ${parsed.error.issues.map(describeIssue).join('; ')}. Fix the file or remove the field; Keel changed nothing.`);
  }
  let local: LocalSettings | undefined;
  try {
    local = parsed.data.local === undefined ? undefined : checkSettings(parsed.data.local);
  } catch {
    local = undefined;
  }
  return { ...defaults, ...(parsed.data as Omit<Settings, 'local'>), local };
}

/**
 * The seconds a cache break may take before the app asks first, as the person typed them in
 * Settings: empty is never ask; anything but a plain number of 0 or more is refused in words.
 */
export function parseAskAboveSeconds(typed: string): number | undefined {
  const text = typed.trim();
  if (text === '') return undefined;
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(text)) {
    throw new Error(`"${text}" is not a number of seconds: give 0 or more (like 5 or 0.5), or leave it empty to never ask.`);
  }
  return Number(text);
}

/** Writes settings.json whole (through a temporary file, so a crash leaves the old one or the new). */
export function writeSettings(dataFolder: string, settings: Settings): void {
  fs.mkdirSync(dataFolder, { recursive: true });
  const file = fileOf(dataFolder);
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(settings, null, 2));
  fs.renameSync(`${file}.tmp`, file);
}

/** The settings a person can see and set (`keel settings`, the Settings panel): each one's name, what it is and its value, in order. */
export function settingViews(settings: Settings): SettingView[] {
  return Object.entries(FIELDS.shape).map(([name, field]) => {
    const value = (settings as Record<string, unknown>)[name];
    return { name, description: field.description ?? '', ...(value === undefined ? {} : { value }) };
  });
}

/**
 * Sets one setting in `<dataFolder>/settings.json` from what a person typed: JSON (`5`, `true`,
 * `["a.example"]`), or else the text itself; undefined removes it. The file is checked as
 * readSettings checks it (`local` as the settings form does) and written only when it passes;
 * otherwise a SettingsError names the setting and nothing is written.
 */
export function setSetting(dataFolder: string, name: string, typed: string | undefined): Settings {
  const names = Object.keys(FIELDS.shape);
  if (!names.includes(name)) throw new SettingsError(`There is no setting "${name}"; the settings are ${names.join(', ')}.`);
  const { [name]: _old, ...rest } = readSettings(dataFolder) as Record<string, unknown>;
  const value = typed === undefined ? undefined : jsonOrText(typed);
  const next = value === undefined ? rest : { ...rest, [name]: value };
  const parsed = SETTINGS.safeParse(next);
  if (!parsed.success) throw new SettingsError(`${name} cannot be ${typed}: ${parsed.error.issues.map(describeIssue).join('; ')}. Nothing was written.`);
  if (name === 'local' && value !== undefined) {
    try {
      checkSettings(value);
    } catch (err) {
      throw new SettingsError(`local cannot be ${typed}: ${(err as Error).message} Nothing was written.`);
    }
  }
  writeSettings(dataFolder, next as Settings);
  return readSettings(dataFolder);
}

function jsonOrText(typed: string): unknown {
  try {
    return JSON.parse(typed);
  } catch {
    return typed;
  }
}
