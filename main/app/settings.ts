import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { Rule } from '../core/permissions/gate.js';
import type { SandboxOptions } from '../sandbox/policy.js';
import { checkSettings, type LocalSettings } from '../llm/localSettings.js';
import { describeIssue } from '../core/zodIssues.js';

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
 * field here, its check and its type (`Settings`) both. Keys Keel does not read (`hooks`, which
 * core/hooks checks, and whatever else a file copied from another tool holds) are kept as they are
 * and written back. `local` is checked by llm/localSettings.ts, whose messages the settings form shows.
 */
const FIELDS = z.object({
  /** Where the model picker looks for GGUF files (default ~/models). */
  modelsFolder: z.string().optional(),
  /** The model last loaded: a file, or a server's `server:URL#model` id. */
  lastModel: z.string().optional(),
  /** The local engine's settings; absent: every one is auto. */
  local: z.unknown().optional(),
  /** Bytes all saved KV states may take (default: sized to the disk, see llm/stateFiles.ts). */
  stateBudgetBytes: z.number().int().positive().optional(),
  /**
   * More paths no command may read, the domains approved commands may reach (none by default), and
   * the environment variables commands get besides PATH, HOME, the locale and TERM.
   */
  sandbox: z.strictObject({ denyRead: texts.optional(), allowedDomains: texts.optional(), env: texts.optional() }).optional(),
  /** The person's permission rules (gate.ts): `{"action": "deny", "tool": "bash", "pattern": "rm"}`. */
  rules: z.array(RULE).optional(),
  /** Ask before an action whose cache break would take longer than this many seconds to re-read (core/price); absent: never ask. */
  askAboveSeconds: z.number().nonnegative().optional(),
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
