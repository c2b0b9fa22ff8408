import type { RequestRow } from '../../../../main/contract.js';
import type { SliceContext } from '../slice.js';

export interface RequestsSlice {
  sessionId?: number;
  rows: RequestRow[];
  load(sessionId: number): Promise<void>;
  add(sessionId: number, row: RequestRow): void;
  clear(): void;
}

/** The session's model requests and their cache figures, as main recorded them. */
export function requestsSlice({ get, set, call }: SliceContext<RequestsSlice>): RequestsSlice {
  return {
    rows: [],
    async load(sessionId) {
      set({ sessionId, rows: get().sessionId === sessionId ? get().rows : [] });
      const got = await call((api) => api.requests(sessionId));
      if (got.ok && get().sessionId === sessionId) set({ rows: got.value });
    },
    add(sessionId, row) {
      if (get().sessionId !== sessionId) return;
      set((s) => ({ rows: [...s.rows.filter((r) => r.id !== row.id), row].sort((a, b) => a.id - b.id) }));
    },
    clear: () => set({ sessionId: undefined, rows: [] }),
  };
}
