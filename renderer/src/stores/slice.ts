/**
 * What a slice of the one store is made with (store.ts): its own state, the parts of the store it
 * uses, and the one way to call main. A leaf: a slice names the other slices it needs in `R`
 * (`SliceContext<InspectorSlice, { ui: UiSlice }>`), so no slice imports the store and the store,
 * which imports every slice, closes no import circle.
 */
import type { KeelClient } from '../api.js';

/** What a call to main gave: its value, or main's readable reason. Never a thrown error. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * Calls main. A failure goes to the error banner unless `quiet` (the caller shows it itself). With
 * `about` (what the call is about: 'model', 'session'…), a failure replaces the banner's earlier
 * errors about the same thing, and a success clears them: no stale error outlives its fix.
 */
export type Call = <T>(work: (api: KeelClient) => Promise<T>, o?: { quiet?: boolean; about?: string }) => Promise<Outcome<T>>;

/**
 * The slices that panels bring (components/panels.ts gives the store their makers): empty here,
 * each panel's slice file adds its own key (`declare module` … `interface PanelSlices { hooks: HooksSlice }`),
 * so the store's type knows every panel's slice without importing the panels (which import the store).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging, one key a panel slice
export interface PanelSlices {}

export interface SliceContext<S, R = object> {
  get(): S;
  /** Merges into this slice's state (a new slice object, so its subscribers see the change). */
  set(patch: Partial<S> | ((slice: S) => Partial<S>)): void;
  /** The other slices this one uses (their state and actions), from the whole store. */
  root(): R;
  call: Call;
}
