import { create } from 'zustand';

export type Tab = 'transcript' | 'cache' | 'servers';

interface UiState {
  tab: Tab;
  inspectorOpen: boolean;
  /** Bumped to ask the inspector's id field to take focus (Ctrl/Cmd+I). */
  inspectorFocus: number;
  pickerOpen: boolean;
  setTab(tab: Tab): void;
  openInspector(focus?: boolean): void;
  closeInspector(): void;
  setPicker(open: boolean): void;
}

/** What is open where: view state only, nothing from main. */
export const useUi = create<UiState>()((set) => ({
  tab: 'transcript',
  inspectorOpen: false,
  inspectorFocus: 0,
  pickerOpen: false,
  setTab: (tab) => set({ tab }),
  openInspector: (focus = false) => set((s) => ({ inspectorOpen: true, inspectorFocus: focus ? s.inspectorFocus + 1 : s.inspectorFocus })),
  closeInspector: () => set({ inspectorOpen: false }),
  setPicker: (pickerOpen) => set({ pickerOpen }),
}));
