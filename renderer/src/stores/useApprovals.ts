import { sliceHook } from './store.js';

/** The approvals slice of the one store (see store.ts). */
export const useApprovals = sliceHook('approvals');
