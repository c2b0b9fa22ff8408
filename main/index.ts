/**
 * Electron main process: app lifecycle and the one window. Thin on purpose: this file (with the
 * IPC binder and preload) is the only place that wires Electron, so everything else runs in plain
 * Node under test.
 */
import { app, BrowserWindow, session } from 'electron';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
/** Built by electron-vite: out/main/index.js, out/preload/index.cjs, out/renderer/index.html. */
const preloadPath = join(here, '../preload/index.cjs');
const rendererHtml = join(here, '../renderer/index.html');
/** Set by `electron-vite dev` only; a packaged app always loads the built files. */
const devServerUrl = app.isPackaged ? undefined : process.env['ELECTRON_RENDERER_URL'];

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
  if (devServerUrl) void win.loadURL(devServerUrl);
  else void win.loadFile(rendererHtml);
  return win;
}

// The renderer shows our own page only: no navigation away, no new windows, no webviews.
app.on('web-contents-created', (_event, contents) => {
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
});

void app.whenReady().then(() => {
  // Keel needs no camera, microphone, notifications, geolocation…: refuse every request and check.
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);

  createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});
