import { sliceHook } from './store.js';

/** The connection slice of the one store (see store.ts). */
export const useConnection = sliceHook('connection');
