/**
 * Preload: exposes exactly the typed contract to the renderer as `window.keel`, nothing more: one
 * function per method of the contract (METHODS, read off main/contract.ts's one table) plus
 * `onEvent`. No ipcRenderer, no generic send/on, no channel names reach the page.
 * Built as CommonJS because sandboxed preload scripts cannot be ES modules; it imports only
 * `electron` and main/contract.ts (values only from leaf modules, no Node code), which the bundler
 * inlines.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { CALL_CHANNEL, EVENT_CHANNEL, METHODS, type CallReply, type KeelApi, type KeelEvent } from '../main/contract.js';

/** What the page sees as `window.keel`. */
export type KeelBridge = KeelApi & {
  /** Calls `listener` with every event main pushes; returns the unsubscription. */
  onEvent(listener: (event: KeelEvent) => void): () => void;
};

async function call(method: string, args: unknown[]): Promise<unknown> {
  const reply = (await ipcRenderer.invoke(CALL_CHANNEL, method, args)) as CallReply;
  if (reply.ok) return reply.value;
  throw new Error(reply.error);
}

const api = Object.fromEntries(
  METHODS.map((method) => [method, (...args: unknown[]) => call(method, args)]),
) as unknown as KeelApi;

const bridge: KeelBridge = {
  ...api,
  onEvent(listener) {
    // The IPC event object (with its sender) never reaches the page: only the KeelEvent.
    const handler = (_event: IpcRendererEvent, event: KeelEvent): void => listener(event);
    ipcRenderer.on(EVENT_CHANNEL, handler);
    return () => void ipcRenderer.removeListener(EVENT_CHANNEL, handler);
  },
};

contextBridge.exposeInMainWorld('keel', bridge);
