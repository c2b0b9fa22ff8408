import { readSettings, setSetting, settingViews } from '../../app/settings.js';
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
    for (const s of settingViews(readSettings(keelHome()))) {
      io.out.write(`${s.name} = ${s.value === undefined ? '(not set)' : JSON.stringify(s.value)}\n    ${s.description}\n`);
    }
    return;
  }
  if (unset === (typed !== undefined)) {
    throw new UsageError(`keel settings ${name} needs a value, or --unset to remove it (not both). See \`keel --help\`.`);
  }
  const value = (setSetting(keelHome(), name, typed) as Record<string, unknown>)[name];
  io.out.write(value === undefined ? `${name} is not set now.\n` : `${name} = ${JSON.stringify(value)}\n`);
}
