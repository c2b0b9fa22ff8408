import { beforeAll, describe, expect, it, vi } from 'vitest';
import { CALL_CHANNEL, CONTRACT, EVENT_CHANNEL, METHODS } from '../contract.js';

const electron = vi.hoisted(() => ({
  exposed: new Map<string, Record<string, unknown>>(),
  invoke: vi.fn(),
  on: vi.fn(),
  removeListener: vi.fn(),
}));

vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, api: Record<string, unknown>) => electron.exposed.set(key, api) },
  ipcRenderer: { invoke: electron.invoke, on: electron.on, removeListener: electron.removeListener },
}));

let keel: Record<string, (...args: unknown[]) => unknown>;

beforeAll(async () => {
  await import('../../preload/index.js');
  keel = electron.exposed.get('keel') as typeof keel;
});

describe('preload', () => {
  it('exposes exactly the contract plus onEvent, and nothing else', () => {
    expect([...electron.exposed.keys()]).toEqual(['keel']);
    expect(Object.keys(keel).sort()).toEqual([...Object.keys(CONTRACT), 'onEvent'].sort());
    expect(Object.keys(keel).sort()).toEqual([...METHODS, 'onEvent'].sort());
    for (const value of Object.values(keel)) expect(typeof value).toBe('function');
  });

  it('turns a reply into a value or a rejection', async () => {
    electron.invoke.mockResolvedValueOnce({ ok: true, value: [{ id: 1 }] });
    await expect(keel.listSessions()).resolves.toEqual([{ id: 1 }]);
    expect(electron.invoke).toHaveBeenLastCalledWith(CALL_CHANNEL, 'listSessions', []);
    electron.invoke.mockResolvedValueOnce({ ok: false, error: 'openSession: argument 1 must be an integer.' });
    await expect(keel.openSession('1')).rejects.toThrow('openSession: argument 1 must be an integer.');
    expect(electron.invoke).toHaveBeenLastCalledWith(CALL_CHANNEL, 'openSession', ['1']);
  });

  it('passes events on without the IPC event object, and unsubscribes', () => {
    const seen: unknown[] = [];
    const off = keel.onEvent((e: unknown) => seen.push(e)) as () => void;
    expect(electron.on).toHaveBeenCalledWith(EVENT_CHANNEL, expect.any(Function));
    const handler = electron.on.mock.calls[0][1] as (ipcEvent: unknown, event: unknown) => void;
    handler({ sender: 'the ipc event' }, { type: 'turn-ended', sessionId: 2 });
    expect(seen).toEqual([{ type: 'turn-ended', sessionId: 2 }]);
    off();
    expect(electron.removeListener).toHaveBeenCalledWith(EVENT_CHANNEL, handler);
  });
});
