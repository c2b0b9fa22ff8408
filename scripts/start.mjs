#!/usr/bin/env node
// `npm start`: builds the app and opens the desktop window (Electron). Where Electron's binary is
// missing and cannot be fetched, or better-sqlite3 cannot be built for it (both need the internet
// once), it says so in one sentence and starts browser mode instead, printing the address to open
// (and opening it where a browser can be). It takes no flags: the tests run it as the README does.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function run(command, commandArgs, options = {}) {
  return spawnSync(command, commandArgs, { cwd: root, stdio: 'inherit', ...options }).status === 0;
}

/** Electron's binary, fetched first if missing (quietly: offline, its own output is a stack trace); undefined if none. */
function electronBinary() {
  const pkg = path.dirname(require.resolve('electron/package.json'));
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  const installed = () => {
    const pathFile = path.join(pkg, 'path.txt');
    const name = fs.existsSync(pathFile) ? fs.readFileSync(pathFile, 'utf8') : undefined;
    const binary = override ? path.join(override, name || 'electron') : name && path.join(pkg, 'dist', name);
    return binary && fs.existsSync(binary) ? binary : undefined;
  };
  if (installed() || override) return installed();
  spawnSync(process.execPath, [path.join(pkg, 'install.js')], { cwd: pkg, stdio: 'pipe', timeout: 300_000 });
  return installed();
}

/** Browser mode: the same UI and engine on 127.0.0.1; the address is printed, and opened where a browser can be. */
function browserMode(why) {
  console.log(`${why} Keel starts in browser mode instead.`);
  const server = spawn(process.execPath, ['--import', 'tsx', 'main/server/serve.ts'], { cwd: root, stdio: ['inherit', 'pipe', 'inherit'] });
  let opened = false;
  server.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    const url = /https?:\/\/127\.0\.0\.1:\d+\/\S*/.exec(String(chunk))?.[0];
    if (url && !opened) {
      opened = true;
      openBrowser(url);
    }
  });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
  server.on('exit', (code) => process.exit(code ?? 0));
}

function openBrowser(url) {
  if (process.env.KEEL_NO_OPEN) return;
  const display = process.platform !== 'linux' || process.env.DISPLAY || process.env.WAYLAND_DISPLAY;
  if (!display) return;
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  spawn(opener, [url], { stdio: 'ignore', detached: true }).on('error', () => undefined).unref();
}

/**
 * electron-vite's command line, found through its package's `bin` entry: the package exports only
 * `.`, `./node` and `./package.json` (electron-vite 6), so a path inside it cannot be resolved.
 */
function electronViteCli() {
  const manifest = require.resolve('electron-vite/package.json');
  const { bin } = JSON.parse(fs.readFileSync(manifest, 'utf8'));
  const entry = typeof bin === 'string' ? bin : bin?.['electron-vite'];
  if (!entry) throw new Error(`${manifest} names no electron-vite command in its "bin" field.`);
  return path.join(path.dirname(manifest), entry);
}

if (!run(process.execPath, [electronViteCli(), 'build'])) process.exit(1);
const binary = electronBinary();
if (!binary) {
  browserMode("Electron's binary is not installed and could not be downloaded (it needs the internet once).");
} else if (!run(process.execPath, ['scripts/electronNative.mjs'], { stdio: 'pipe' })) {
  browserMode('better-sqlite3 could not be built for Electron (it needs Electron\'s headers from the internet once).');
} else {
  const app = spawn(binary, ['.'], { cwd: root, stdio: 'inherit' });
  app.on('exit', (code) => process.exit(code ?? 0));
}
