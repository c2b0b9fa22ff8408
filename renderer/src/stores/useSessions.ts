import { sliceHook } from './store.js';

/** The sessions slice of the one store (see store.ts). */
export const useSessions = sliceHook('sessions');
