import { readSettings, setSetting, settingFields } from '../../app/settings.js';
import { keelHome } from '../../keelHome.js';
import { UsageError, type Io } from '../io.js';

/**
 * `keel settings`: every setting of `$KEEL_HOME/settings.json` with its value and what it is;
 * `keel settings NAME VALUE` sets one (checked as the app checks the file), `--unset` removes it.
 * The list follows the settings' one schema (app/settings.ts), so a new setting appears here by itself.
 */
export function settingsCommand(positionals: readonly string[], unset: boolean, io: Io): void {
  const [name, typed] = positionals;
  if (name === undefined) {
    if (unset) throw new UsageError('keel settings --unset needs the setting: keel settings NAME --unset. See `keel --help`.');
    const settings = readSettings(keelHome()) as Record<string, unknown>;
    for (const field of settingFields()) {
      const value = settings[field.name];
      io.out.write(`${field.name} = ${value === undefined ? '(not set)' : JSON.stringify(value)}\n    ${field.description}\n`);
    }
    return;
  }
  if (unset === (typed !== undefined)) {
    throw new UsageError(`keel settings ${name} needs a value, or --unset to remove it (not both). See \`keel --help\`.`);
  }
  const value = (setSetting(keelHome(), name, typed) as Record<string, unknown>)[name];
  io.out.write(value === undefined ? `${name} is not set now.\n` : `${name} = ${JSON.stringify(value)}\n`);
}
