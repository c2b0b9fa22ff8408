/**
 * The transport: the same `KeelApi & { onEvent }` object in Electron (the preload's `window.keel`)
 * and in browser mode (a WebSocket to the loopback server that served this page). Stores reach
 * main only through `getApi()`; tests put a fake in with `setApi()`.
 */
import { brokenClient, ipcClient } from './transport/ipcClient.js';
import type { KeelClient } from './transport/types.js';
import { WsClient, socketUrl } from './transport/wsClient.js';

export type { KeelClient } from './transport/types.js';

declare global {
  interface Window {
    keel?: unknown;
  }
}

let current: KeelClient | undefined;

function connect(): KeelClient {
  const exposed = ipcClient(window.keel);
  if (exposed) return exposed;
  if (location.protocol === 'http:' || location.protocol === 'https:') {
    return new WsClient({ url: socketUrl(location.href) }).client();
  }
  return brokenClient(
    window.keel
      ? "Keel's preload script does not expose the whole contract: rebuild the app (npm run build)."
      : "Keel's preload script did not run, so this window cannot reach the app.",
  );
}

export function getApi(): KeelClient {
  current ??= connect();
  return current;
}

export function setApi(client: KeelClient): void {
  current = client;
}
