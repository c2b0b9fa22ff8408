import { sliceHook } from './store.js';

/** The inspector slice of the one store (see store.ts). */
export const useInspector = sliceHook('inspector');
export { normaliseId } from './slices/inspector.js';
