/**
 * `--server URL --model NAME`: a session on a model server. The key comes from KEEL_SERVER_KEY, or
 * from a file only its owner can read (`--key-file FILE`, else `$KEEL_HOME/server-key` when it
 * exists) — never from a flag, which would show in the shell's history and the process list.
 */
import fs from 'node:fs';
import path from 'node:path';
import { keelHome } from '../../keelHome.js';
import { CliError } from '../io.js';

export interface ServerFlags {
  server?: string;
  keyFile?: string;
}

/** The API key for the command line, if one is set; a key file others can read is refused. */
export function serverKey(keyFile?: string): string | undefined {
  const fromEnv = process.env.KEEL_SERVER_KEY;
  if (fromEnv && keyFile === undefined) return fromEnv;
  const file = keyFile === undefined ? path.join(keelHome(), 'server-key') : path.resolve(keyFile);
  if (!fs.existsSync(file)) {
    if (keyFile !== undefined) throw new CliError(`The key file ${file} does not exist.`);
    return undefined;
  }
  const mode = fs.statSync(file).mode & 0o777;
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    throw new CliError(`The key file ${file} can be read by others (mode ${mode.toString(8)}): run \`chmod 600 ${file}\` first.`);
  }
  return fs.readFileSync(file, 'utf8').trim() || undefined;
}
