import { sliceHook } from './store.js';

/** The transcript slice of the one store (see store.ts). */
export const useTranscript = sliceHook('transcript');
export type { Live } from './slices/transcript.js';
