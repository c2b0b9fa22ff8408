import type { ActionToPrice, ContextView, PriceView, RequestRow } from '../../../../main/contract.js';
import type { Outcome, SliceContext } from '../slice.js';

export interface RequestsSlice {
  sessionId?: number;
  rows: RequestRow[];
  /** The next message's request by part, as main measured it; `contextError`: why main could not (the session answering, say). */
  context?: ContextView;
  contextError?: string;
  load(sessionId: number): Promise<void>;
  add(sessionId: number, row: RequestRow): void;
  /** Asks main for the next request's parts again (the Context panel, after each turn). */
  loadContext(sessionId: number): Promise<void>;
  /** What `action` would make the session's next request re-read, as main prices it; a failure is handed back, never bannered. */
  price(sessionId: number, action: ActionToPrice): Promise<Outcome<PriceView>>;
  clear(): void;
}

let asked = 0;

/** The session's model requests and their cache figures, the next request's parts, and an action's price, as main has them. */
export function requestsSlice({ get, set, call }: SliceContext<RequestsSlice>): RequestsSlice {
  return {
    rows: [],
    async load(sessionId) {
      const same = get().sessionId === sessionId;
      set({ sessionId, rows: same ? get().rows : [], ...(same ? {} : { context: undefined, contextError: undefined }) });
      const got = await call((api) => api.requests(sessionId));
      if (got.ok && get().sessionId === sessionId) set({ rows: got.value });
    },
    add(sessionId, row) {
      if (get().sessionId !== sessionId) return;
      set((s) => ({ rows: [...s.rows.filter((r) => r.id !== row.id), row].sort((a, b) => a.id - b.id) }));
    },
    async loadContext(sessionId) {
      const mine = ++asked;
      const got = await call((api) => api.context(sessionId), { quiet: true });
      if (mine !== asked || get().sessionId !== sessionId) return;
      set(got.ok ? { context: got.value, contextError: undefined } : { contextError: got.error });
    },
    price: (sessionId, action) => call((api) => api.price(sessionId, action), { quiet: true }),
    clear: () => set({ sessionId: undefined, rows: [], context: undefined, contextError: undefined }),
  };
}
