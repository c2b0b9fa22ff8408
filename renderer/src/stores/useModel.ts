import { sliceHook } from './store.js';

/** The model slice of the one store (see store.ts). */
export const useModel = sliceHook('model');
