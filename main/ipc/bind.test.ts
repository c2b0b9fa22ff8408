import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startHost, type Host } from '../appHost.js';
import { DEFAULT_PROMPTS_DIR } from '../core/prompts/buildSystemPrompt.js';
import { CALL_CHANNEL, EVENT_CHANNEL, type CallReply } from '../contract.js';
import { bindIpc, REFUSED } from './bind.js';
import { ownPageCheck } from './pageChecks.js';

/** Electron's ipcMain as bindIpc uses it (no Electron binary here): one handler per channel. */
const electron = { handlers: new Map<string, (...args: unknown[]) => Promise<unknown>>() };
const ipc = {
  handle: (channel: string, handler: (...args: unknown[]) => Promise<unknown>) => {
    if (electron.handlers.has(channel)) throw new Error(`a second handler for ${channel}`);
    electron.handlers.set(channel, handler);
  },
  removeHandler: (channel: string) => { electron.handlers.delete(channel); },
} as unknown as Electron.IpcMain;

const rendererHtml = path.resolve('/app/out/renderer/index.html');
const ownUrl = pathToFileURL(rendererHtml).href;

interface FakeFrame { processId: number; routingId: number; parent: FakeFrame | null; url: string }

function fakeWindow() {
  const mainFrame: FakeFrame = { processId: 4, routingId: 1, parent: null, url: ownUrl };
  const webContents = { mainFrame, send: vi.fn(), isDestroyed: () => false };
  return { webContents, isDestroyed: () => false };
}

let tmp: string;
let workspace: string;
let host: Host;
let win: ReturnType<typeof fakeWindow> | undefined;
let unbind: () => void;

const invoke = (event: unknown, method: unknown, args: unknown) =>
  electron.handlers.get(CALL_CHANNEL)!(event, method, args) as Promise<CallReply>;
const fromMain = () => ({ sender: win!.webContents, senderFrame: win!.webContents.mainFrame });

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-ipc-')));
  workspace = path.join(tmp, 'ws');
  fs.mkdirSync(workspace);
  host = startHost({ dataFolder: path.join(tmp, 'home'), promptsDir: DEFAULT_PROMPTS_DIR });
});

afterAll(async () => {
  await host.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

beforeEach(() => {
  unbind?.();
  win = fakeWindow();
  unbind = bindIpc({
    ipc,
    host,
    window: () => win as unknown as Electron.BrowserWindow | undefined,
    isOwnPage: ownPageCheck({ rendererHtml }),
  });
});

describe('bindIpc', () => {
  it('answers calls from the window’s main frame on our page', async () => {
    expect(await invoke(fromMain(), 'listSessions', [])).toEqual({ ok: true, value: [] });
    const created = await invoke(fromMain(), 'createSession', [{ workspace, kind: 'chat', title: 'IPC' }]);
    expect(created).toMatchObject({ ok: true, value: { title: 'IPC', kind: 'chat' } });
  });

  it('refuses other senders before anything runs', async () => {
    const spy = vi.spyOn(host, 'call');
    const main = win!.webContents.mainFrame;
    const refusedEvents = [
      { sender: win!.webContents, senderFrame: null },
      // An iframe inside our page.
      { sender: win!.webContents, senderFrame: { processId: 4, routingId: 2, parent: main, url: ownUrl } },
      // Another window's contents.
      { sender: { mainFrame: main }, senderFrame: main },
      // Our main frame, navigated somewhere else.
      { sender: win!.webContents, senderFrame: { ...main, url: 'https://evil.com/' } },
      { sender: win!.webContents, senderFrame: { ...main, url: pathToFileURL('/tmp/evil.html').href } },
    ];
    for (const event of refusedEvents) {
      expect(await invoke(event, 'listSessions', [])).toEqual({ ok: false, error: REFUSED });
    }
    win = undefined;
    expect(await invoke({ sender: {}, senderFrame: {} }, 'listSessions', [])).toEqual({ ok: false, error: REFUSED });
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
  });

  it('validates the method and its arguments', async () => {
    expect(await invoke(fromMain(), 'openSession', ['1'])).toEqual({ ok: false, error: expect.stringMatching(/integer/) });
    expect(await invoke(fromMain(), 'openSession', [0])).toEqual({ ok: false, error: expect.stringMatching(/at least 1/) });
    expect(await invoke(fromMain(), 'setMode', [1, 'yolo'])).toMatchObject({ ok: false, error: expect.stringMatching(/one of/) });
    expect(await invoke(fromMain(), 'shell', ['rm -rf /'])).toMatchObject({ ok: false, error: expect.stringMatching(/Unknown method/) });
    expect(await invoke(fromMain(), 'toString', [])).toMatchObject({ ok: false, error: expect.stringMatching(/Unknown method/) });
    expect(await invoke(fromMain(), 'listSessions', 'x')).toMatchObject({ ok: false });
    expect(await invoke(fromMain(), 'listSessions', [1])).toMatchObject({ ok: false, error: expect.stringMatching(/at most 0/) });
    expect(await invoke(fromMain(), 'openSession', [12345])).toMatchObject({ ok: false });
  });

  it('sends events to the window, and stops when unbound', async () => {
    const { value } = (await invoke(fromMain(), 'createSession', [{ workspace, kind: 'agent' }])) as { value: { id: number } };
    await invoke(fromMain(), 'setMode', [value.id, 'plan']);
    expect(win!.webContents.send).toHaveBeenCalledWith(EVENT_CHANNEL, { type: 'session-changed', sessionId: value.id });
    unbind();
    expect(electron.handlers.has(CALL_CHANNEL)).toBe(false);
    win!.webContents.send.mockClear();
    await host.api.setMode(value.id, 'auto');
    expect(win!.webContents.send).not.toHaveBeenCalled();
    unbind = () => undefined;
  });
});
