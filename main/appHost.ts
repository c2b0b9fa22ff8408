/**
 * The app's one service and its event fan-out, independent of any transport: the Electron window
 * (main/ipc) and the loopback server (main/server) both bind what this returns, so the two cannot
 * drift apart. Plain Node: no Electron import.
 */
import path from 'node:path';
import { checkCall } from './app/checkCall.js';
import { KeelService, type ServiceOptions } from './app/service.js';
import { readSettings, SettingsError, type Settings } from './app/settings.js';
import { SqliteStore, StoreError, type StoreOptions } from './db/store.js';
import { CONTRACT, METHODS, type AppState, type CallReply, type KeelApi, type KeelEvent } from './contract.js';

export interface HostOptions {
  /** The data folder (keelHome()); the store is `<dataFolder>/keel.db`. */
  dataFolder: string;
  /** The prompts/ folder shipped with the app. */
  promptsDir: string;
  threads?: number;
  contextSize?: number;
  scriptFor?: ServiceOptions['scriptFor'];
  pickFolder?: ServiceOptions['pickFolder'];
  nativeBinding?: StoreOptions['nativeBinding'];
  /** Encrypts server API keys: the desktop app's safeStorage (browser mode keeps keys in memory). */
  secretBox?: ServiceOptions['secretBox'];
  /** An editor's buffers, by session (keel acp). */
  files?: ServiceOptions['files'];
}

export type EventListener = (event: KeelEvent) => void;

/** How often the store is checked for sessions made outside the app. */
const OUTSIDE_CHECK_MS = 2000;

export interface Host {
  /** The contract, bound to the real service (or to the problem that stopped it). */
  readonly api: KeelApi;
  /** Set when the store could not be opened: every call but getState rejects with it. */
  readonly problem?: string;
  /**
   * Runs one untrusted call from a transport: checks the method and its arguments against the
   * contract (checkCall), then calls the service. Never throws: failures come back as a message.
   */
  call(method: unknown, args: unknown): Promise<CallReply>;
  /** Adds a listener for every event main pushes; returns its removal. */
  subscribe(listener: EventListener): () => void;
  /** Stops running work, releases models and closes the store. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Opens the store and creates the service. A database Keel cannot use (StoreError), or a
 * settings.json it cannot read (SettingsError), does not stop the app: the host starts, getState() reports the problem (its message names the file), every
 * other call rejects with it, and the file is left exactly as it was.
 */
export function startHost(o: HostOptions): Host {
  const listeners = new Set<EventListener>();
  const emit = (event: KeelEvent): void => {
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch {
        // One broken listener (a closed socket, a destroyed window) must not stop the others.
      }
    }
  };
  const subscribe = (listener: EventListener): (() => void) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  };

  let store: SqliteStore;
  try {
    readSettings(o.dataFolder);
    store = new SqliteStore(path.join(o.dataFolder, 'keel.db'), { nativeBinding: o.nativeBinding });
  } catch (err) {
    if (!(err instanceof StoreError) && !(err instanceof SettingsError)) throw err;
    const api = unusableApi(o.dataFolder, err.message);
    return { api, problem: err.message, call: (method, args) => callApi(api, method, args), subscribe, close: async () => listeners.clear() };
  }

  const service = new KeelService({
    store, dataFolder: o.dataFolder, promptsDir: o.promptsDir, emit,
    threads: o.threads, contextSize: o.contextSize, scriptFor: o.scriptFor, pickFolder: o.pickFolder, secretBox: o.secretBox, files: o.files,
  });
  // Sessions `keel` creates on the same store appear in the window without a reload.
  const watch = setInterval(() => service.checkOutside(), OUTSIDE_CHECK_MS);
  watch.unref();
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      clearInterval(watch);
      listeners.clear();
      try {
        await service.close();
      } finally {
        store.close();
      }
    })();
    return closing;
  };
  return { api: service, call: (method, args) => callApi(service, method, args), subscribe, close };
}

async function callApi(api: KeelApi, method: unknown, args: unknown): Promise<CallReply> {
  try {
    const name = checkCall(method, args);
    const fn = api[name] as (...given: unknown[]) => Promise<unknown>;
    // JSON has no undefined: over the socket a left-out argument arrives as null (an array keeps
    // the place). The service reads only undefined as "left out", so an optional null becomes that.
    const given = (args as unknown[]).map((a, i) => (a === null && i >= CONTRACT[name].optionalFrom ? undefined : a));
    return { ok: true, value: await fn.apply(api, given) };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

/** The contract when the store cannot be used: the state says why, every other call rejects. */
function unusableApi(dataFolder: string, problem: string): KeelApi {
  const api = Object.fromEntries(METHODS.map((method) => [method, () => Promise.reject(new Error(problem))])) as unknown as KeelApi;
  api.getState = async (): Promise<AppState> => {
    let settings: Settings = { modelsFolder: '' };
    try {
      settings = readSettings(dataFolder);
    } catch {
      // The problem is the settings file itself: the state says so, with no folder to offer.
    }
    return { modelsFolder: settings.modelsFolder, lastModel: settings.lastModel, dataFolder, problem };
  };
  return api;
}
