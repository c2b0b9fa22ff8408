import { METHODS } from '../../../main/contract.js';
import type { KeelClient } from './types.js';

/**
 * In Electron the preload exposes the contract as `window.keel`: one async function per KeelApi
 * method and `onEvent`. Returns it when it is complete, so a preload that lags behind the
 * contract shows as a readable error rather than "x is not a function" later.
 */
export function ipcClient(exposed: unknown): KeelClient | undefined {
  if (!exposed || typeof exposed !== 'object') return undefined;
  const api = exposed as Record<string, unknown>;
  if (typeof api['onEvent'] !== 'function') return undefined;
  if (!METHODS.every((m) => typeof api[m] === 'function')) return undefined;
  return exposed as KeelClient;
}

/** A client whose every call fails with the same reason (no transport could be set up). */
export function brokenClient(reason: string): KeelClient {
  const fail = () => Promise.reject(new Error(reason));
  const api = Object.fromEntries(METHODS.map((m) => [m, fail]));
  return { ...api, onEvent: () => () => undefined } as unknown as KeelClient;
}
