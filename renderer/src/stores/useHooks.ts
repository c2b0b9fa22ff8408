import { sliceHook } from './store.js';

/** The hooks slice of the one store (see store.ts). */
export const useHooks = sliceHook('hooks');
export { hooksAttention } from './slices/hooks.js';
