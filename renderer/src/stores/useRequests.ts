import { sliceHook } from './store.js';

/** The requests slice of the one store (see store.ts). */
export const useRequests = sliceHook('requests');
