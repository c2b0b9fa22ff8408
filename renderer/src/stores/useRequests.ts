import { create } from 'zustand';
import type { RequestRow } from '../../../main/contract.js';
import { getApi } from '../api.js';
import { report } from './useErrors.js';

interface RequestsState {
  sessionId?: number;
  rows: RequestRow[];
  load(sessionId: number): Promise<void>;
  add(sessionId: number, row: RequestRow): void;
  clear(): void;
}

/** The session's model requests and their cache figures, as main recorded them. */
export const useRequests = create<RequestsState>()((set, get) => ({
  rows: [],
  async load(sessionId) {
    set({ sessionId, rows: get().sessionId === sessionId ? get().rows : [] });
    try {
      const rows = await getApi().requests(sessionId);
      if (get().sessionId === sessionId) set({ rows });
    } catch (err) {
      report(err);
    }
  },
  add(sessionId, row) {
    if (get().sessionId !== sessionId) return;
    set((s) => ({ rows: [...s.rows.filter((r) => r.id !== row.id), row].sort((a, b) => a.id - b.id) }));
  },
  clear: () => set({ sessionId: undefined, rows: [] }),
}));
