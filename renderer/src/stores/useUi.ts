import { sliceHook } from './store.js';

/** The ui slice of the one store (see store.ts). */
export const useUi = sliceHook('ui');
export type { Tab } from './slices/ui.js';
