/**
 * Electron main process: app lifecycle and the one window. Thin on purpose: this file (with the
 * IPC binder and preload) is the only place that wires Electron, so everything else runs in plain
 * Node under test.
 */
import { app, BrowserWindow, dialog, ipcMain, safeStorage, session, shell } from 'electron';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHost, type Host } from './appHost.js';
import { bindIpc } from './ipc/bind.js';
import { isExternalLinkAllowed, ownPageCheck } from './ipc/pageChecks.js';
import { KeelHomeError, keelHome } from './keelHome.js';

const here = dirname(fileURLToPath(import.meta.url));
/** Built by electron-vite: out/main/index.js, out/preload/index.cjs, out/renderer/index.html. */
const preloadPath = join(here, '../preload/index.cjs');
const rendererHtml = join(here, '../renderer/index.html');
/** Set by `electron-vite dev` only; a packaged app always loads the built files. */
const devServerUrl = app.isPackaged ? undefined : process.env['ELECTRON_RENDERER_URL'];

let mainWindow: BrowserWindow | undefined;
let host: Host | undefined;
let unbind: (() => void) | undefined;

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1200,
    height: 800,
    title: 'Keel',
    show: false,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webviewTag: false,
    },
  });
  win.once('ready-to-show', () => win.show());
  win.on('closed', () => {
    if (mainWindow === win) mainWindow = undefined;
  });
  if (devServerUrl) void win.loadURL(devServerUrl);
  else void win.loadFile(rendererHtml);
  return win;
}

// The renderer shows our own page only: no navigation away, no new windows, no webviews. A link
// the page opens in a new window goes to the system browser, and only when it is https.
app.on('web-contents-created', (_event, contents) => {
  contents.setWindowOpenHandler(({ url }) => {
    if (isExternalLinkAllowed(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
});

void app.whenReady().then(() => {
  // Keel needs no camera, microphone, notifications, geolocation…: refuse every request and check.
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);

  // Prompts ship with the app (the repository's prompts/ folder, at the app's root when packaged);
  // the source-relative default in buildSystemPrompt.ts would point outside the bundle.
  let dataFolder: string;
  try {
    dataFolder = keelHome();
  } catch (e) {
    // A data folder Keel cannot use: one sentence, then the app quits with a non-zero code.
    if (!(e instanceof KeelHomeError)) throw e;
    dialog.showErrorBox('Keel cannot start', e.message);
    app.exit(1);
    return;
  }
  host = startHost({
    dataFolder,
    promptsDir: join(app.getAppPath(), 'prompts'),
    // better-sqlite3 built for Electron's ABI by scripts/electronNative.mjs (npm start) or electron-builder.
    nativeBinding: app.isPackaged ? undefined : join(app.getAppPath(), 'out', 'native', `electron-${process.versions.electron}`, 'better_sqlite3.node'),
    // Server API keys go to the OS keychain's encryption (never SQLite, never plain text on disk).
    secretBox: safeStorage.isEncryptionAvailable()
      ? { encrypt: (text) => safeStorage.encryptString(text), decrypt: (data) => safeStorage.decryptString(data) }
      : undefined,
    pickFolder: async () => {
      const options = { title: 'Workspace folder', properties: ['openDirectory', 'createDirectory'] as ('openDirectory' | 'createDirectory')[] };
      const picked = mainWindow ? await dialog.showOpenDialog(mainWindow, options) : await dialog.showOpenDialog(options);
      return picked.canceled ? undefined : picked.filePaths[0];
    },
  });
  unbind = bindIpc({ ipc: ipcMain, host, window: () => mainWindow, isOwnPage: ownPageCheck({ rendererHtml, devServerUrl }) });

  mainWindow = createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) mainWindow = createWindow();
  });
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

// Quitting waits for the host to stop running work, save state and close the store (a few seconds
// at most: a stuck model must not keep the app from quitting).
let quitting: 'no' | 'closing' | 'closed' = 'no';
app.on('will-quit', (event) => {
  if (quitting === 'closed' || !host) return;
  event.preventDefault();
  if (quitting === 'closing') return;
  quitting = 'closing';
  unbind?.();
  const timeout = new Promise<void>((resolve) => setTimeout(resolve, 5000).unref());
  void Promise.race([host.close(), timeout]).catch(() => undefined).finally(() => {
    quitting = 'closed';
    app.quit();
  });
});
