/**
 * The renderer's state: one zustand store made of slices (zustand's slices pattern), one per job,
 * each under its own key so their field names cannot collide. A slice reads and calls the others
 * through `root()`, inside the store, never through another store's `getState()`.
 *
 * The core slices are listed here; a panel's slices come from its line in components/panels.ts
 * (`startKeel`), their types from the `PanelSlices` their files declare (slice.ts).
 *
 * `call` is the one place that reaches main: every slice's API call goes through it, and a failure
 * is reported there (the error banner) or, for `quiet` calls, handed back for the slice to show.
 * A slice names the others it uses (slice.ts), so none imports this file.
 * Components read the store with zustand's own hook: `useKeel((s) => s.transcript.view)`,
 * `useKeel.getState().ui.setTab('plan')`.
 */
import { create, type StoreApi } from 'zustand';
import { getApi } from '../api.js';
import type { Call, PanelSlices, SliceContext } from './slice.js';
import { approvalsSlice, type ApprovalsSlice } from './slices/approvals.js';
import { connectionSlice, type ConnectionSlice } from './slices/connection.js';
import { errorsSlice, reason, type ErrorsSlice } from './slices/errors.js';
import { modelSlice, type ModelSlice } from './slices/model.js';
import { requestsSlice, type RequestsSlice } from './slices/requests.js';
import { sessionsSlice, type SessionsSlice } from './slices/sessions.js';
import { subagentsSlice, type SubagentsSlice } from './slices/subagents.js';
import { transcriptSlice, type TranscriptSlice } from './slices/transcript.js';
import { uiSlice, type UiSlice } from './slices/ui.js';

/** The slices every view uses; the panels' own are in PanelSlices. */
export interface CoreSlices {
  approvals: ApprovalsSlice;
  connection: ConnectionSlice;
  errors: ErrorsSlice;
  model: ModelSlice;
  requests: RequestsSlice;
  sessions: SessionsSlice;
  subagents: SubagentsSlice;
  transcript: TranscriptSlice;
  ui: UiSlice;
}

export interface KeelState extends CoreSlices, PanelSlices {}

/** What makes each slice of T: its context in (the whole store as `root`), the slice out. */
export type SliceMakers<T> = { [K in keyof T & keyof KeelState]: (context: SliceContext<KeelState[K], KeelState>) => KeelState[K] };

/** The makers of the panels' slices: each panel's line gives its own (components/panels.ts). */
export type PanelSliceMakers = Partial<SliceMakers<PanelSlices>>;

const core: SliceMakers<CoreSlices> = {
  approvals: approvalsSlice,
  connection: connectionSlice,
  errors: errorsSlice,
  model: modelSlice,
  requests: requestsSlice,
  sessions: sessionsSlice,
  subagents: subagentsSlice,
  transcript: transcriptSlice,
  ui: uiSlice,
};

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

/** Makes each slice under its key, with a context that reads and merges that key only. */
function make(makers: PanelSliceMakers | SliceMakers<CoreSlices>, set: StoreApi<KeelState>['setState'], get: () => KeelState): Partial<KeelState> {
  const context = <K extends keyof KeelState>(key: K): SliceContext<KeelState[K], KeelState> => ({
    get: () => get()[key],
    set: (patch) =>
      set((s) => ({ [key]: { ...s[key], ...(typeof patch === 'function' ? patch(s[key]) : patch) } }) as Partial<KeelState>),
    root: get,
    call: callMain,
  });
  const made: Partial<Record<keyof KeelState, unknown>> = {};
  for (const [key, slice] of Object.entries(makers) as [keyof KeelState, (c: SliceContext<unknown, KeelState>) => unknown][]) {
    made[key] = slice(context(key) as SliceContext<unknown, KeelState>);
  }
  return made as Partial<KeelState>;
}

/** The one store. Its panels' slices join it with `startKeel`, before anything reads them. */
export const useKeel = create<KeelState>()((set, get) => make(core, set, get) as KeelState);

let started: KeelState | undefined;

/**
 * Adds the panels' slices (components/panels.ts's `panelSlices`) to the store: main.tsx, before the
 * first render; tests, through resetStores. Once: a second call changes nothing.
 */
export function startKeel(panelSlices: PanelSliceMakers): void {
  if (started) return;
  useKeel.setState(make(panelSlices, useKeel.setState, useKeel.getState));
  started = useKeel.getState();
}

/** Puts the store back to its state when it started (tests: it is a module singleton). */
export function resetKeel(): void {
  useKeel.setState(started ?? useKeel.getInitialState(), true);
}

/** Merges into one slice: a field its slice has no action for (a dismissed error), and tests' set-ups. */
export function setSlice<K extends keyof KeelState>(key: K, patch: Partial<KeelState[K]>): void {
  useKeel.setState((s) => ({ [key]: { ...s[key], ...patch } }) as Partial<KeelState>);
}
