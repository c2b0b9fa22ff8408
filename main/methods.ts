/**
 * The contract's method names and channel names as plain values, for the preload script (which
 * must not pull in Node code) and both transports. Types come from the contract; the checks below
 * make a method added to KeelApi but missing here (or listed here but not in KeelApi) a compile
 * error, so the preload, the IPC binder and the loopback server cannot drift from the contract.
 */
import type { KeelMethod, METHOD_ARGS } from './contract.js';

export const METHODS = [
  'getState',
  'listSessions',
  'createSession',
  'openSession',
  'deleteSession',
  'send',
  'stop',
  'undo',
  'regenerate',
  'compact',
  'setMode',
  'recall',
  'requests',
  'listModels',
  'setModelsFolder',
  'loadModel',
  'switchModel',
  'answerApproval',
  'pendingApprovals',
  'pickFolder',
  'downloadModel',
  'setPlan',
  'rewind',
  'editAndResend',
  'deleteTurn',
  'localSettings',
  'setLocalSettings',
  'doctor',
  'mcpServers',
  'approveMcpFile',
  'restartMcpServer',
  'trustMcpServer',
  'serverModels',
  'useServerModel',
] as const satisfies readonly KeelMethod[];

type Listed = (typeof METHODS)[number];
/** `true` only when METHODS, KeelApi and METHOD_ARGS name the same methods. */
type Agree = [Exclude<KeelMethod, Listed>, Exclude<keyof typeof METHOD_ARGS, Listed>] extends [never, never] ? true : false;
export const METHODS_AGREE = true satisfies Agree;

/** The one IPC channel for calls (renderer → main, invoke/handle). */
export const CALL_CHANNEL = 'keel:call';
/** The one IPC channel for events (main → renderer). */
export const EVENT_CHANNEL = 'keel:event';

/** What a call returns over either transport before the client turns it back into a promise. */
export type CallReply = { ok: true; value?: unknown } | { ok: false; error: string };
