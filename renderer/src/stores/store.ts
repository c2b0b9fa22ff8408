/**
 * The renderer's state: one zustand store made of slices (zustand's slices pattern), one per job,
 * each under its own key so their field names cannot collide. A slice reads and calls the others
 * through `root()`, inside the store, never through another store's `getState()`.
 *
 * `call` is the one place that reaches main: every slice's API call goes through it, and a failure
 * is reported there (the error banner) or, for `quiet` calls, handed back for the slice to show.
 * A slice names the others it uses (slice.ts), so none imports this file.
 * Components keep their per-slice hooks (`useTranscript(selector)`, made by `sliceHook`).
 */
import { create } from 'zustand';
import { getApi } from '../api.js';
import type { Call, SliceContext } from './slice.js';
import { approvalsSlice, type ApprovalsSlice } from './slices/approvals.js';
import { changesSlice, type ChangesSlice } from './slices/changes.js';
import { connectionSlice, type ConnectionSlice } from './slices/connection.js';
import { errorsSlice, reason, type ErrorsSlice } from './slices/errors.js';
import { hooksSlice, type HooksSlice } from './slices/hooks.js';
import { inspectorSlice, type InspectorSlice } from './slices/inspector.js';
import { localEngineSlice, type LocalEngineSlice } from './slices/localEngine.js';
import { modelSlice, type ModelSlice } from './slices/model.js';
import { requestsSlice, type RequestsSlice } from './slices/requests.js';
import { serversSlice, type ServersSlice } from './slices/servers.js';
import { sessionsSlice, type SessionsSlice } from './slices/sessions.js';
import { transcriptSlice, type TranscriptSlice } from './slices/transcript.js';
import { uiSlice, type UiSlice } from './slices/ui.js';

export interface KeelState {
  approvals: ApprovalsSlice;
  changes: ChangesSlice;
  connection: ConnectionSlice;
  errors: ErrorsSlice;
  hooks: HooksSlice;
  inspector: InspectorSlice;
  localEngine: LocalEngineSlice;
  model: ModelSlice;
  requests: RequestsSlice;
  servers: ServersSlice;
  sessions: SessionsSlice;
  transcript: TranscriptSlice;
  ui: UiSlice;
}

/**
 * The one place the renderer calls main and reports a failure: the transport from getApi(), main's
 * words for what went wrong, the banner unless the caller shows them itself.
 */
export const callMain: Call = async (work, o = {}) => {
  try {
    const value = await work(getApi());
    if (o.about !== undefined) useKeel.getState().errors.clear(o.about);
    return { ok: true, value };
  } catch (err) {
    const error = reason(err);
    if (!o.quiet) useKeel.getState().errors.push(error, o.about);
    return { ok: false, error };
  }
};

export type { Call, Outcome } from './slice.js';

export const useKeel = create<KeelState>()((set, get) => {
  const context = <K extends keyof KeelState>(key: K): SliceContext<KeelState[K], KeelState> => ({
    get: () => get()[key],
    set: (patch) =>
      set((s) => ({ [key]: { ...s[key], ...(typeof patch === 'function' ? patch(s[key]) : patch) } }) as Partial<KeelState>),
    root: get,
    call: callMain,
  });
  return {
    approvals: approvalsSlice(context('approvals')),
    changes: changesSlice(context('changes')),
    connection: connectionSlice(context('connection')),
    errors: errorsSlice(context('errors')),
    hooks: hooksSlice(context('hooks')),
    inspector: inspectorSlice(context('inspector')),
    localEngine: localEngineSlice(context('localEngine')),
    model: modelSlice(context('model')),
    requests: requestsSlice(context('requests')),
    servers: serversSlice(context('servers')),
    sessions: sessionsSlice(context('sessions')),
    transcript: transcriptSlice(context('transcript')),
    ui: uiSlice(context('ui')),
  };
});

/** A slice as a hook of its own: `useX(selector)`, `useX()`, `useX.getState()`, `useX.setState(patch)`. */
export interface SliceHook<K extends keyof KeelState> {
  <T>(selector: (slice: KeelState[K]) => T): T;
  (): KeelState[K];
  getState(): KeelState[K];
  setState(patch: Partial<KeelState[K]>): void;
}

export function sliceHook<K extends keyof KeelState>(key: K): SliceHook<K> {
  function use<T>(selector?: (slice: KeelState[K]) => T): T | KeelState[K] {
    return useKeel((s) => (selector ? selector(s[key]) : s[key]));
  }
  return Object.assign(use, {
    getState: () => useKeel.getState()[key],
    setState: (patch: Partial<KeelState[K]>) => useKeel.setState((s) => ({ [key]: { ...s[key], ...patch } }) as Partial<KeelState>),
  }) as SliceHook<K>;
}
