import type { RecallView } from '../../../../main/contract.js';
import type { SliceContext } from '../slice.js';
import type { UiSlice } from './ui.js';
import type { TranscriptSlice } from './transcript.js';

export interface InspectorSlice {
  /** The ids opened, newest last (the tabs). */
  tabs: string[];
  active?: string;
  view?: RecallView;
  loading: boolean;
  error?: string;
  show(id: string, offset?: number): Promise<void>;
  next(): Promise<void>;
  prev(): Promise<void>;
  closeTab(id: string): void;
  reset(): void;
}

/** A panel's slice: the store's type learns its key here (slice.ts), its line in components/panels.ts makes it. */
declare module '../slice.js' {
  interface PanelSlices {
    inspector: InspectorSlice;
  }
}

let seq = 0;

/** Normalises `12`, `#12`, `#0012` to `#0012` (at least four lowercase hex digits). */
export function normaliseId(given: string): string | undefined {
  const bare = given.trim().replace(/^#/, '').toLowerCase();
  if (!/^[0-9a-f]+$/.test(bare) || /^0+$/.test(bare)) return undefined;
  return '#' + bare.replace(/^0+/, '').padStart(4, '0');
}

/**
 * The Recall inspector: one stored result by id, metadata first, then its body a page at a time,
 * exactly as `recall()` returns them, for the open session. Its failures show in the inspector.
 */
export function inspectorSlice({ get, set, root, call }: SliceContext<InspectorSlice, { ui: UiSlice; transcript: TranscriptSlice }>): InspectorSlice {
  return {
    tabs: [],
    loading: false,
    async show(given, offset = 1) {
      root().ui.openInspector();
      const id = normaliseId(given);
      if (!id) {
        set({ error: `“${given}” is not a result id: ids look like #0012.` });
        return;
      }
      const session = root().transcript.sessionId;
      if (session === undefined) {
        set({ error: 'Open a session first: results belong to a session.' });
        return;
      }
      const mine = ++seq;
      set((s) => ({ active: id, loading: true, error: undefined, tabs: s.tabs.includes(id) ? s.tabs : [...s.tabs.slice(-7), id] }));
      const got = await call((api) => api.recall(session, id, offset), { quiet: true });
      if (mine !== seq) return;
      set(got.ok ? { view: got.value, loading: false } : { view: undefined, loading: false, error: got.error });
    },
    async next() {
      const view = get().view;
      if (view && view.offset + view.pageSize <= view.totalLines) await get().show(view.id, view.offset + view.pageSize);
    },
    async prev() {
      const view = get().view;
      if (view && view.offset > 1) await get().show(view.id, Math.max(1, view.offset - view.pageSize));
    },
    closeTab(id) {
      const tabs = get().tabs.filter((t) => t !== id);
      if (get().active !== id) return set({ tabs });
      set({ tabs, active: undefined, view: undefined, error: undefined });
      const last = tabs.at(-1);
      if (last) void get().show(last);
    },
    reset: () => set({ tabs: [], active: undefined, view: undefined, error: undefined, loading: false }),
  };
}
