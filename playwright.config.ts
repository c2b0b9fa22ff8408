/**
 * `npm run test:e2e` (after `electron-vite build`): `playwright test` runs e2e/*.e2e.ts, Keel in a
 * real browser on the real host, store, tools and engine with generated models. Name filter:
 * `npm run test:e2e -- -g NAME`.
 *
 * The browser is Debian's Chromium (/usr/bin/chromium, or KEEL_CHROMIUM): Playwright's own browser
 * downloads cannot work offline. One worker, tests one after another: each loads models, and the
 * machine may have two cores. Screenshots of the main views (e2e/harness.ts) and of any failure
 * land in test-results/ (git-ignored), which Playwright empties at the start of a run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { defineConfig } from '@playwright/test';
import { CHROMIUM, CHROMIUM_ARGS, RENDERER_DIR, RESULTS_DIR } from './e2e/harness.js';

if (!fs.existsSync(path.join(RENDERER_DIR, 'index.html'))) {
  throw new Error(`${RENDERER_DIR}/index.html is missing: run \`npx electron-vite build\` first (npm run test:e2e does).`);
}
if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium).`);

export default defineConfig({
  testDir: 'e2e',
  testMatch: '*.e2e.ts',
  outputDir: RESULTS_DIR,
  workers: 1,
  fullyParallel: false,
  retries: 0,
  forbidOnly: true,
  /** Per test: each starts a host and loads generated models on a busy machine. */
  timeout: 120_000,
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    headless: true,
    launchOptions: { executablePath: CHROMIUM, args: CHROMIUM_ARGS },
    screenshot: 'only-on-failure',
  },
});
