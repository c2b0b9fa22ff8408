/**
 * `keel acp`: Keel as an Agent Client Protocol agent on standard input and output (docs/acp.md),
 * on the app's data folder: its sessions, its model (or the one given) and its approvals.
 */
import path from 'node:path';
import { serveAcp } from '../../acp/serve.js';
import type { Mode } from '../../contract.js';
import { DEFAULT_PROMPTS_DIR } from '../../core/prompts/buildSystemPrompt.js';
import { keelHome } from '../../keelHome.js';
import { CliError, type Io } from '../io.js';

export async function acpCommand(o: { model?: string; server?: string; mode?: Mode }, io: Io & { input?: NodeJS.ReadableStream }): Promise<number> {
  try {
    await serveAcp({
      dataFolder: keelHome(), promptsDir: DEFAULT_PROMPTS_DIR,
      // A file is named from where the editor started Keel; a server's model is a name.
      model: o.model !== undefined && o.server === undefined ? path.resolve(o.model) : o.model,
      server: o.server, mode: o.mode,
      input: io.input ?? process.stdin, output: process.stdout, log: (line) => io.err.write(`${line}\n`),
    });
  } catch (err) {
    // What stopped it from starting (a model file that is not there, a server that does not answer), in its own words.
    throw new CliError((err as Error).message);
  }
  return 0;
}
