import { sliceHook } from './store.js';

/** The changes slice of the one store (see store.ts). */
export const useChanges = sliceHook('changes');
