#!/usr/bin/env node
// better-sqlite3 is compiled for Node's ABI by `npm ci` (the tests need that build). The desktop
// app runs in Electron, which needs its own build: this script compiles a copy of better-sqlite3
// against Electron's headers into out/native/electron-<version>/better_sqlite3.node and leaves
// node_modules untouched. It needs the internet once (Electron's headers); later runs reuse it.
// node-llama-cpp's binaries are N-API and load in Electron as they are.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const electronVersion = require('electron/package.json').version;
const target = path.join(root, 'out', 'native', `electron-${electronVersion}`, 'better_sqlite3.node');

if (fs.existsSync(target)) {
  console.log(`better-sqlite3 for Electron ${electronVersion}: ${target}`);
  process.exit(0);
}
const source = path.dirname(require.resolve('better-sqlite3/package.json'));
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-native-'));
try {
  fs.cpSync(source, path.join(work, 'better-sqlite3'), { recursive: true, filter: (p) => !p.includes(`${path.sep}build${path.sep}`) });
  const gyp = path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  const command = fs.existsSync(gyp) ? [process.execPath, gyp] : ['npx', '--yes', 'node-gyp'];
  console.log(`Compiling better-sqlite3 for Electron ${electronVersion} (needs Electron's headers from the internet)…`);
  execFileSync(command[0], [...command.slice(1), 'rebuild', '--release', `--target=${electronVersion}`, '--runtime=electron',
    '--dist-url=https://electronjs.org/headers'], { cwd: path.join(work, 'better-sqlite3'), stdio: 'inherit' });
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.copyFileSync(path.join(work, 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'), target);
  console.log(`better-sqlite3 for Electron ${electronVersion}: ${target}`);
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
