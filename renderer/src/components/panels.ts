/**
 * The panels: one line each, in the order the top bar shows the tabs. App.tsx, the top bar and the
 * shortcuts read this table, and the store makes the slices it names (main.tsx: startKeel), so a
 * new panel is its folder (its component, slice, css and test) and one line here.
 */
import type { ComponentType } from 'react';
import type { Shortcut } from '../shortcuts.js';
import type { PanelSlices } from '../stores/slice.js';
import { changesSlice } from '../stores/slices/changes.js';
import { hooksSlice } from '../stores/slices/hooks.js';
import { inspectorSlice } from '../stores/slices/inspector.js';
import { serversSlice } from '../stores/slices/servers.js';
import type { PanelSliceMakers } from '../stores/store.js';
import { CacheBadge, CacheView } from './cache/CacheView.js';
import { ChangesView } from './changes/ChangesView.js';
import { Inspector, openInspectorByKey } from './inspector/Inspector.js';
import { PlanBadge, PlanTab } from './plan/PlanPanel.js';
import { ProcessesBadge, ProcessesView } from './processes/ProcessesView.js';
import { processesSlice } from './processes/slice.js';
import { projectFilesSlice } from './servers/projectFilesSlice.js';
import { ServersBadge, ServersView } from './servers/ServersView.js';
import { SettingsButton, toggleSettings } from './settings/SettingsButton.js';
import { localEngineSlice } from './settings/slice.js';
import { Transcript } from './transcript/Transcript.js';

export interface Panel {
  /** Its tab's id: `ui.tab`, and its tab button's test id (`${id}-tab`). */
  id: string;
  /** Its name: a tab's words. */
  label: string;
  /** Where it shows: a tab of the top bar (the first is the one shown for any other tab), the column on the right, the title bar. */
  place: 'tab' | 'side' | 'title';
  /** What it shows there: a tab's view, the side column, the title bar's button and what it opens. */
  Component: ComponentType;
  /** What could not be shown, for the message when it fails to render ("The plan"); none: it has no boundary of its own. */
  what?: string;
  /** A tab's counts beside its name. */
  Badge?: ComponentType;
  /** The slices it brings into the one store, each under the key its file declares (slice.ts's PanelSlices). */
  slices?: PanelSliceMakers;
  /** Its key: Ctrl/Cmd with `key` runs `run`. */
  shortcut?: Shortcut;
}

const table = [
  { id: 'transcript', label: 'Transcript', place: 'tab', Component: Transcript, what: 'The transcript' },
  { id: 'cache', label: 'Cache', place: 'tab', Component: CacheView, Badge: CacheBadge, what: 'The cache view' },
  { id: 'plan', label: 'Plan', place: 'tab', Component: PlanTab, Badge: PlanBadge, what: 'The plan' },
  { id: 'changes', label: 'Changes', place: 'tab', Component: ChangesView, what: 'The Changes view', slices: { changes: changesSlice } },
  { id: 'processes', label: 'Processes', place: 'tab', Component: ProcessesView, Badge: ProcessesBadge, what: 'The Processes panel', slices: { processes: processesSlice } },
  { id: 'servers', label: 'Servers', place: 'tab', Component: ServersView, Badge: ServersBadge, what: 'The Servers panel', slices: { servers: serversSlice, hooks: hooksSlice, projectFiles: projectFilesSlice } },
  { id: 'inspector', label: 'Recall', place: 'side', Component: Inspector, what: 'The Recall inspector', slices: { inspector: inspectorSlice }, shortcut: { key: 'i', run: openInspectorByKey } },
  { id: 'settings', label: 'Settings', place: 'title', Component: SettingsButton, slices: { localEngine: localEngineSlice }, shortcut: { key: ',', run: toggleSettings } },
] satisfies Panel[];

export const panels: readonly Panel[] = table;

/** Every panel's slices, for the store (startKeel). */
export const panelSlices: PanelSliceMakers = Object.assign({}, ...panels.map((p) => p.slices ?? {}));

/** A slice a file declares (PanelSlices) that no line above makes fails to compile here, naming its key. */
type Made = (typeof table)[number] extends infer P ? (P extends { slices: infer S } ? keyof S : never) : never;
const _everySliceMade: [Exclude<keyof PanelSlices, Made>] extends [never] ? true : Exclude<keyof PanelSlices, Made> = true;
