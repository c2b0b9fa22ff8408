import { sliceHook } from './store.js';

/** The errors slice of the one store (see store.ts). */
export const useErrors = sliceHook('errors');
export type { ErrorItem } from './slices/errors.js';
