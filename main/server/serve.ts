/**
 * `npm run serve`: Keel in a browser. Starts the app host on the data folder (KEEL_HOME or
 * ~/.keel), serves the built renderer (out/renderer) and the contract on 127.0.0.1, and prints
 * the URL to open, token included. Ctrl-C closes everything cleanly (a second one exits at once).
 *
 *   tsx main/server/serve.ts [--port N] [--threads N] [--context N]
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startHost } from '../appHost.js';
import { keelHome } from '../keelHome.js';
import { startServer } from './server.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const USAGE = `Usage: npm run serve -- [--port N] [--threads N] [--context N]
  --port N      listen on 127.0.0.1:N (default: a free port)
  --threads N   CPU threads for the model
  --context N   context size in tokens
Data folder: $KEEL_HOME, or ~/.keel.`;

function count(name: string, given: string | undefined, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (given === undefined) return undefined;
  const n = Number(given);
  if (!/^\d+$/.test(given) || n < min || n > max) throw new Error(`--${name} needs a whole number from ${min} to ${max}, not "${given}".`);
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { port: { type: 'string' }, threads: { type: 'string' }, context: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = count('port', values.port, 0, 65535);
  const threads = count('threads', values.threads, 1);
  const contextSize = count('context', values.context, 1);

  // The data folder first: one Keel cannot use is named in one sentence (keelHome's KeelHomeError), exit 1.
  const dataFolder = keelHome();
  const rendererDir = path.join(repo, 'out/renderer');
  if (!fs.existsSync(path.join(rendererDir, 'index.html'))) throw new Error(`${rendererDir}/index.html is missing: run \`npx electron-vite build\` first.`);
  const host = startHost({ dataFolder, promptsDir: path.join(repo, 'prompts'), threads, contextSize });
  if (host.problem) console.error(`Warning: ${host.problem}`);
  let server;
  try {
    server = await startServer({ host, port, rendererDir });
  } catch (err) {
    await host.close();
    throw err;
  }

  console.log(`Keel is serving ${dataFolder} on 127.0.0.1:${server.port}.`);
  console.log(`Open this address (it holds this run's secret token; do not share it):\n\n  ${server.url}\n`);
  console.log('Press Ctrl-C to stop.');

  let stopping = false;
  const stop = (): void => {
    if (stopping) process.exit(130);
    stopping = true;
    console.log('\nStopping…');
    void server.close()
      .then(() => host.close())
      .then(() => process.exit(0), (err: unknown) => {
        console.error(`Keel did not close cleanly: ${(err as Error).message}`);
        process.exit(1);
      });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});
