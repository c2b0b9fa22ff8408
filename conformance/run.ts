import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCase, type CaseFile } from './runner.js';
import { stopSandbox } from '../main/sandbox/runner.js';

/**
 * `npm run conformance [-- FILE…]`: runs case files (default: every conformance/*.json) and prints
 * `ok - NAME` / `not ok - NAME` per case, then `N passed, N failed`; exits 1 if any failed. A case
 * that has not ended after CASE_LIMIT_MS fails, saying so, and the run goes on: a hang is a
 * failure with its name, not a run that never ends.
 */
const CASE_LIMIT_MS = 120_000;

async function withinLimit(c: CaseFile['cases'][number]): Promise<{ ok: boolean; name: string; detail?: string }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<{ ok: boolean; name: string; detail: string }>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, name: c.name, detail: `it had not ended after ${CASE_LIMIT_MS / 1000} s` }), CASE_LIMIT_MS);
  });
  try {
    return await Promise.race([runCase(c), late]);
  } finally {
    clearTimeout(timer);
  }
}
async function main(): Promise<number> {
  const files = process.argv.slice(2).filter((a) => a !== '--');
  const here = path.dirname(fileURLToPath(import.meta.url));
  const paths = files.length > 0 ? files : fs.readdirSync(here).filter((f) => f.endsWith('.json')).sort().map((f) => path.join(here, f));
  let passed = 0;
  let failed = 0;
  for (const file of paths) {
    let parsed: CaseFile;
    try {
      parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as CaseFile;
      if (!Array.isArray(parsed.cases)) throw new Error('it has no "cases" array');
    } catch (err) {
      console.log(`not ok - ${path.resolve(file)}: cannot read the case file: ${(err as Error).message}`);
      failed++;
      continue;
    }
    for (const c of parsed.cases) {
      const outcome = await withinLimit(c);
      if (outcome.ok) {
        passed++;
        console.log(`ok - ${outcome.name}`);
      } else {
        failed++;
        console.log(`not ok - ${outcome.name}\n  ${outcome.detail?.replaceAll('\n', '\n  ')}`);
      }
    }
  }
  console.log(`${passed} passed, ${failed} failed`);
  return failed > 0 ? 1 : 0;
}

process.exitCode = await main();
// The command sandbox's proxies keep the process alive; stop them so it can exit.
await stopSandbox();
// What a case that ran past its limit left running (killed at exit) must not keep the run open.
process.exit();
