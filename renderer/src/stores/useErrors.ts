import { create } from 'zustand';

export interface ErrorItem {
  id: number;
  message: string;
}

interface ErrorsState {
  items: ErrorItem[];
  push(message: string): void;
  dismiss(id: number): void;
}

let nextId = 1;

/** Readable messages for the error banner: failed calls and main's `error` events. */
export const useErrors = create<ErrorsState>()((set, get) => ({
  items: [],
  push(message) {
    // A failed run arrives twice (an `error` event and the rejected call): show it once.
    if (get().items.some((item) => item.message === message)) return;
    set((s) => ({ items: [...s.items.slice(-4), { id: nextId++, message }] }));
  },
  dismiss(id) {
    set((s) => ({ items: s.items.filter((item) => item.id !== id) }));
  },
}));

/** Puts a rejected call's reason in the banner. */
export function report(err: unknown): void {
  const message = err instanceof Error ? err.message : typeof err === 'string' ? err : 'Something went wrong (no reason given).';
  useErrors.getState().push(message || 'Something went wrong (no reason given).');
}
