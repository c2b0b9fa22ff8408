import type { SliceContext } from '../slice.js';

export type Tab = 'transcript' | 'cache' | 'plan' | 'servers';

export interface UiSlice {
  tab: Tab;
  inspectorOpen: boolean;
  /** Bumped to ask the inspector's id field to take focus (Ctrl/Cmd+I). */
  inspectorFocus: number;
  pickerOpen: boolean;
  settingsOpen: boolean;
  setTab(tab: Tab): void;
  openInspector(focus?: boolean): void;
  closeInspector(): void;
  setPicker(open: boolean): void;
  setSettings(open: boolean): void;
}

/** What is open where: view state only, nothing from main. */
export function uiSlice({ set }: SliceContext<UiSlice>): UiSlice {
  return {
    tab: 'transcript',
    inspectorOpen: false,
    inspectorFocus: 0,
    pickerOpen: false,
    settingsOpen: false,
    setTab: (tab) => set({ tab }),
    openInspector: (focus = false) => set((s) => ({ inspectorOpen: true, inspectorFocus: focus ? s.inspectorFocus + 1 : s.inspectorFocus })),
    closeInspector: () => set({ inspectorOpen: false }),
    setPicker: (pickerOpen) => set(pickerOpen ? { pickerOpen, settingsOpen: false } : { pickerOpen }),
    // One popover at a time in the title bar.
    setSettings: (settingsOpen) => set(settingsOpen ? { settingsOpen, pickerOpen: false } : { settingsOpen }),
  };
}
