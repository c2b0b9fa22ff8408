/**
 * The contract bound to Electron IPC: one invoke channel for every call, one channel for events.
 * Whatever arrives here comes from a renderer and is untrusted: the sender must be the main frame
 * of Keel's own window showing Keel's own page, and the arguments must fit the contract
 * (checkCall, inside host.call) before the service sees them.
 */
import type { BrowserWindow, IpcMain, IpcMainInvokeEvent } from 'electron';
import type { Host } from '../appHost.js';
import { CALL_CHANNEL, EVENT_CHANNEL, type CallReply } from '../contract.js';

export interface BindOptions {
  /** Electron's ipcMain, handed in by main/index.ts (the one module of main that imports Electron). */
  ipc: Pick<IpcMain, 'handle' | 'removeHandler'>;
  host: Pick<Host, 'call' | 'subscribe'>;
  /** The app's window, or undefined while none is open (it is recreated on macOS). */
  window: () => BrowserWindow | undefined;
  /** Whether a frame URL is our own page (see ownPageCheck). */
  isOwnPage: (url: string) => boolean;
}

export const REFUSED = 'Refused: the call did not come from Keel\'s own page.';

/** Binds the contract; returns the unbinding (handler removed, events no longer sent). */
export function bindIpc(o: BindOptions): () => void {
  o.ipc.handle(CALL_CHANNEL, async (event: IpcMainInvokeEvent, method: unknown, args: unknown): Promise<CallReply> => {
    if (!fromOwnPage(event, o)) return { ok: false, error: REFUSED };
    return o.host.call(method, args);
  });
  const unsubscribe = o.host.subscribe((event) => {
    const win = o.window();
    if (win && !win.isDestroyed() && !win.webContents.isDestroyed()) win.webContents.send(EVENT_CHANNEL, event);
  });
  return () => {
    o.ipc.removeHandler(CALL_CHANNEL);
    unsubscribe();
  };
}

/** The sender is our window's main frame (not an iframe, not another window) showing our page. */
function fromOwnPage(event: IpcMainInvokeEvent, o: BindOptions): boolean {
  const win = o.window();
  if (!win || win.isDestroyed()) return false;
  const contents = win.webContents;
  const frame = event.senderFrame;
  if (!frame || event.sender !== contents) return false;
  const main = contents.mainFrame;
  const sameFrame = frame === main || (frame.processId === main.processId && frame.routingId === main.routingId);
  return sameFrame && frame.parent === null && o.isOwnPage(frame.url);
}
