import { sliceHook } from './store.js';

/** The localEngine slice of the one store (see store.ts). */
export const useLocalEngine = sliceHook('localEngine');
