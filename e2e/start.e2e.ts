/**
 * `npm start` never dead-ends: where Electron's binary cannot be had, it says so in one sentence and
 * serves browser mode, whose printed address opens the app in a real browser.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO } from './harness.js';
import { test } from '@playwright/test';

test('npm start without an Electron binary prints the browser-mode address, and the app opens there', async ({ browser }) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-start-'));
  const child = spawn(process.execPath, ['scripts/start.mjs', '--no-build'], {
    cwd: REPO, env: { ...process.env, KEEL_HOME: home, KEEL_NO_OPEN: '1', ELECTRON_OVERRIDE_DIST_PATH: path.join(home, 'no-electron') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c) => { out += String(c); });
  child.stderr.on('data', (c) => { out += String(c); });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no address within 60 s; output: ${out}`)), 60_000);
      const check = () => {
        const m = /http:\/\/127\.0\.0\.1:\d+\/\S+\//.exec(out);
        if (m) { clearTimeout(timer); resolve(m[0]); } else setTimeout(check, 100);
      };
      check();
    });
    assert.match(out, /^Electron's binary is not installed and could not be downloaded \(it needs the internet once\)\. Keel starts in browser mode instead\.\n/);
    assert.doesNotMatch(out, /\n\s+at /, 'no stack trace');
    const page = await browser.newPage();
    try {
      await page.goto(url);
      await page.getByTestId('new-session-button').waitFor({ timeout: 30_000 });
    } finally {
      await page.close();
    }
  } finally {
    child.kill('SIGINT');
    await new Promise((resolve) => child.once('exit', resolve));
    fs.rmSync(home, { recursive: true, force: true });
  }
});
