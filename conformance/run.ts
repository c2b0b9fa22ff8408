import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCase, type CaseFile } from './runner.js';
import { stopSandbox } from '../main/sandbox/runner.js';

/**
 * `npm run conformance [-- FILE…]`: runs case files (default: every conformance/*.json) and prints
 * `ok - NAME` / `not ok - NAME` per case, then `N passed, N failed`; exits 1 if any failed.
 */
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
      const outcome = await runCase(c);
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
