import { sliceHook } from './store.js';

/** The servers slice of the one store (see store.ts). */
export const useServers = sliceHook('servers');
export { attention } from './slices/servers.js';
