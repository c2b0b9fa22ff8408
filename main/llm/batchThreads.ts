/**
 * One count of threads for decoding and another for prefill, on one context. node-llama-cpp 3.21
 * takes a single `threads` for a context and gives llama.cpp the same number for single tokens and
 * for batches (n_threads = n_threads_batch, in its addon's context and in setThreads). Before each
 * batch its dispatcher sizes the batch (`initBatch`) and then sets the threads its thread splitter
 * allots (`setThreads`), so wrapping those two on the context's native object gives each batch the
 * count for its kind. These are node-llama-cpp internals (pinned at 3.21.1); where they are missing,
 * the context keeps one count and this says so.
 */
import type { LlamaContext } from 'node-llama-cpp';
import { SEQUENCES } from './fit.js';

/**
 * Batches of at least this many tokens are prefill. A decoding step holds one token per session and
 * its drafts (speculation.ts drafts up to 6): at most SEQUENCES × 7.
 */
export const PREFILL_FROM = SEQUENCES * 8;

interface NativeContext {
  initBatch(size: number): void;
  setThreads(threads: number): void;
}

/**
 * Makes `context` (created with threads = the larger of the two) use `decode` threads for decoding
 * steps and `batch` for prefill batches. Returns false, changing nothing, where node-llama-cpp's
 * internals are not as expected.
 */
export function splitThreads(context: LlamaContext, decode: number, batch: number): boolean {
  const native = (context as unknown as { _ctx?: Partial<NativeContext> })._ctx;
  if (typeof native?.initBatch !== 'function' || typeof native.setThreads !== 'function') return false;
  const init = native.initBatch.bind(native);
  const set = native.setThreads.bind(native);
  let tokens = 0;
  // The addon's methods are read-only on its prototype: own properties on the instance take their place.
  const own = (name: keyof NativeContext, value: (n: number) => void) => Object.defineProperty(native, name, { value, configurable: true });
  own('initBatch', (size) => {
    tokens = size;
    init(size);
  });
  // The splitter's allotment is an upper bound (other contexts may hold threads): never more than it.
  own('setThreads', (allotted) => set(Math.max(1, Math.min(allotted, tokens >= PREFILL_FROM ? batch : decode))));
  return true;
}
