/**
 * The README's first command, as a person runs it: `npm start` in a checkout that has never been
 * built (no out/), build included. Where Electron's binary cannot be had it says so in one sentence
 * and serves browser mode, whose printed address opens the app in a real browser.
 *
 * The checkout is a copy of this one's files as git sees them (tracked and untracked, not ignored:
 * what a clone holds, with node_modules linked to the one install), so this worktree's out/ neither
 * helps nor is disturbed.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from '@playwright/test';
import { REPO } from './harness.js';

/** A checkout as a fresh clone has it: git's files, node_modules installed, nothing built. */
function freshCheckout(dir: string): string {
  const root = path.join(dir, 'keel');
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO, encoding: 'utf8' });
  for (const file of listed.split('\0').filter(Boolean)) {
    if (file === 'node_modules' || file.startsWith('node_modules/')) continue;
    const from = path.join(REPO, file);
    if (!fs.existsSync(from) || fs.lstatSync(from).isDirectory()) continue; // deleted, or a nested repository
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.cpSync(from, path.join(root, file), { verbatimSymlinks: true });
  }
  fs.symlinkSync(fs.realpathSync(path.join(REPO, 'node_modules')), path.join(root, 'node_modules'));
  return root;
}

/**
 * Electron's own override of where its binary lives, pointed at an empty folder, only where this
 * machine has the binary (a desktop): there `npm start` would open the window, not browser mode.
 */
function withoutElectron(home: string): NodeJS.ProcessEnv {
  const pkg = path.join(REPO, 'node_modules/electron');
  const pathFile = path.join(pkg, 'path.txt');
  const installed = fs.existsSync(pathFile) && fs.existsSync(path.join(pkg, 'dist', fs.readFileSync(pathFile, 'utf8')));
  return installed ? { ELECTRON_OVERRIDE_DIST_PATH: path.join(home, 'no-electron') } : {};
}

test('npm start on a checkout never built builds it, prints the browser-mode address, and the app opens there', async ({ browser }) => {
  test.setTimeout(300_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-start-'));
  const home = path.join(dir, 'home');
  fs.mkdirSync(home);
  const root = freshCheckout(dir);
  assert.equal(fs.existsSync(path.join(root, 'out')), false);
  // Its own process group, so that stopping it reaches npm, start.mjs and the server alike.
  const child = spawn('npm', ['start'], {
    cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, KEEL_HOME: home, KEEL_NO_OPEN: '1', ...withoutElectron(home) },
  });
  let out = '';
  child.stdout.on('data', (c) => { out += String(c); });
  child.stderr.on('data', (c) => { out += String(c); });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no address within 240 s; output: ${out}`)), 240_000);
      child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`npm start exited (${code}) before printing an address; output: ${out}`)); });
      const check = () => {
        const m = /http:\/\/127\.0\.0\.1:\d+\/\S+\//.exec(out);
        if (m) { clearTimeout(timer); resolve(m[0]); } else if (child.exitCode === null) setTimeout(check, 100);
      };
      check();
    });
    assert.ok(fs.existsSync(path.join(root, 'out/renderer/index.html')), 'npm start built the renderer');
    assert.match(out, /^Electron's binary is not installed and could not be downloaded \(it needs the internet once\)\. Keel starts in browser mode instead\.$/m);
    assert.doesNotMatch(out, /\n\s+at /, 'no stack trace');
    const page = await browser.newPage();
    try {
      await page.goto(url);
      await page.getByTestId('new-session-button').waitFor({ timeout: 30_000 });
    } finally {
      await page.close();
    }
  } finally {
    if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGINT');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
