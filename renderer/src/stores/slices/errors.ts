import type { SliceContext } from '../slice.js';

export interface ErrorItem {
  id: number;
  message: string;
  /** What it is about (slice.ts `Call`): a newer error or a success about the same thing removes it. */
  about?: string;
}

export interface ErrorsSlice {
  items: ErrorItem[];
  push(message: string, about?: string): void;
  dismiss(id: number): void;
  /** What was about `about` went right: its errors go. */
  clear(about: string): void;
}

let nextId = 1;

/** A rejected call's reason, in words (main's message when it gave one). */
export function reason(err: unknown): string {
  const message = err instanceof Error ? err.message : typeof err === 'string' ? err : '';
  return message || 'Something went wrong (no reason given).';
}

/** Readable messages for the error banner: failed calls and main's `error` events. */
export function errorsSlice({ get, set }: SliceContext<ErrorsSlice>): ErrorsSlice {
  return {
    items: [],
    push(message, about) {
      // A failed run arrives twice (an `error` event and the rejected call): show it once.
      if (get().items.some((item) => item.message === message)) return;
      const kept = get().items.filter((item) => about === undefined || item.about !== about);
      set({ items: [...kept.slice(-4), { id: nextId++, message, ...(about === undefined ? {} : { about }) }] });
    },
    clear(about) {
      if (get().items.some((item) => item.about === about)) set((s) => ({ items: s.items.filter((item) => item.about !== about) }));
    },
    dismiss(id) {
      set((s) => ({ items: s.items.filter((item) => item.id !== id) }));
    },
  };
}
