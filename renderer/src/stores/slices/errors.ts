import type { SliceContext } from '../slice.js';

export interface ErrorItem {
  id: number;
  message: string;
}

export interface ErrorsSlice {
  items: ErrorItem[];
  push(message: string): void;
  dismiss(id: number): void;
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
    push(message) {
      // A failed run arrives twice (an `error` event and the rejected call): show it once.
      if (get().items.some((item) => item.message === message)) return;
      set((s) => ({ items: [...s.items.slice(-4), { id: nextId++, message }] }));
    },
    dismiss(id) {
      set((s) => ({ items: s.items.filter((item) => item.id !== id) }));
    },
  };
}
