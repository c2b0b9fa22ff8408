/**
 * `keel acp` for main/acp/acp.test.ts, as its own process on real standard input and output, with
 * the model's replies scripted: `scriptFile` holds a JSON array of replies, and each request of
 * the model takes the first (the real engine still evaluates every prompt and every token).
 *
 *   tsx test/acpChild.ts DATA_FOLDER MODEL SCRIPT_FILE
 */
import fs from 'node:fs';
import { serveAcp } from '../main/acp/serve.js';
import { DEFAULT_PROMPTS_DIR } from '../main/core/prompts/buildSystemPrompt.js';
import { stopSandbox } from '../main/sandbox/runner.js';

const [dataFolder, model, scriptFile] = process.argv.slice(2);
const next = (): string => {
  const replies = JSON.parse(fs.readFileSync(scriptFile, 'utf8')) as string[];
  const reply = replies.shift();
  fs.writeFileSync(scriptFile, JSON.stringify(replies));
  return reply ?? 'No scripted reply was left.';
};
await serveAcp({
  dataFolder, promptsDir: DEFAULT_PROMPTS_DIR, model, threads: 1, contextSize: 16384,
  input: process.stdin, output: process.stdout, log: (line) => process.stderr.write(`${line}\n`),
  scriptFor: () => ({ next }),
});
// As bin/keel.mjs does: the command sandbox's proxies would keep the process alive.
await stopSandbox();
