/**
 * `npm run test:e2e` (after `electron-vite build`): Keel in a real browser, on the real host,
 * store, tools and engine with generated models. Prints `ok - NAME` / `not ok - NAME` lines and
 * `N passed, N failed`; exits 1 when any test failed.
 *
 *   tsx e2e/run.ts [name filter]
 *
 * Screenshots of the main views are saved under test-results/ (git-ignored).
 */
import fs from 'node:fs';
import path from 'node:path';
import './app.e2e.js';
import './start.e2e.js';
import { launchBrowser, RENDERER_DIR } from './harness.js';
import { runTests } from './runner.js';

async function main(): Promise<number> {
  if (!fs.existsSync(path.join(RENDERER_DIR, 'index.html'))) {
    console.log(`not ok - ${RENDERER_DIR}/index.html is missing: run \`npx electron-vite build\` first.`);
    return 1;
  }
  const browser = await launchBrowser();
  try {
    const { passed, failed } = await runTests(browser, process.argv[2]);
    console.log(`\n${passed} passed, ${failed} failed`);
    return failed > 0 || passed === 0 ? 1 : 0;
  } finally {
    await browser.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.log(`not ok - the browser tests could not run: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
