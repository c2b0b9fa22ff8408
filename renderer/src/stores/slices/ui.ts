import type { SliceContext } from '../slice.js';

export interface UiSlice {
  /** The tab shown: a tab panel's id (components/panels.ts); the first tab, the transcript, for any other. */
  tab: string;
  inspectorOpen: boolean;
  /** Bumped to ask the inspector's id field to take focus (Ctrl/Cmd+I). */
  inspectorFocus: number;
  pickerOpen: boolean;
  settingsOpen: boolean;
  /** The window is narrow (NARROW_QUERY): the sidebar starts collapsed and closes once a session is chosen. */
  narrow: boolean;
  sidebarOpen: boolean;
  setTab(tab: string): void;
  openInspector(focus?: boolean): void;
  closeInspector(): void;
  setPicker(open: boolean): void;
  setSettings(open: boolean): void;
  /** The window crossed the narrow width: the sidebar follows (open when wide, collapsed when narrow). */
  setNarrow(narrow: boolean): void;
  setSidebar(open: boolean): void;
  /** A session was chosen: where the window is narrow the sidebar makes room for it. */
  sessionChosen(): void;
}

/** Below this width the sidebar collapses (the main column keeps room for its tabs and controls). */
export const NARROW_QUERY = '(max-width: 999px)';

/** What is open where: view state only, nothing from main. */
export function uiSlice({ set }: SliceContext<UiSlice>): UiSlice {
  const narrow = typeof window !== 'undefined' && typeof window.matchMedia === 'function' && window.matchMedia(NARROW_QUERY).matches;
  return {
    tab: 'transcript',
    inspectorOpen: false,
    inspectorFocus: 0,
    pickerOpen: false,
    settingsOpen: false,
    narrow,
    sidebarOpen: !narrow,
    setTab: (tab) => set({ tab }),
    openInspector: (focus = false) => set((s) => ({ inspectorOpen: true, inspectorFocus: focus ? s.inspectorFocus + 1 : s.inspectorFocus })),
    closeInspector: () => set({ inspectorOpen: false }),
    setPicker: (pickerOpen) => set(pickerOpen ? { pickerOpen, settingsOpen: false } : { pickerOpen }),
    // One popover at a time in the title bar.
    setSettings: (settingsOpen) => set(settingsOpen ? { settingsOpen, pickerOpen: false } : { settingsOpen }),
    setNarrow: (narrow) => set((s) => (s.narrow === narrow ? {} : { narrow, sidebarOpen: !narrow })),
    setSidebar: (sidebarOpen) => set({ sidebarOpen }),
    sessionChosen: () => set((s) => (s.narrow ? { sidebarOpen: false } : {})),
  };
}
