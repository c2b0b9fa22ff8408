import type { KeelEvent, RequestRow, SessionView } from '../../../../main/contract.js';
import type { SliceContext } from '../slice.js';

export type SubagentState = Extract<KeelEvent, { type: 'subagent' }>['state'];

/** A subagent as main's `subagent` events told of it: whose it is, where it stands, what it is for. */
export interface SubagentInfo {
  parentId: number;
  state: SubagentState;
  /** Its session's title: the task's description (read once, when main first tells of it). */
  title?: string;
}

/** A subagent's transcript and cache rows, open inside its task card: its own session, as main has it. */
export interface NestedView {
  view?: SessionView;
  requests: RequestRow[];
}

export interface SubagentsSlice {
  /** Every subagent main told of since the window opened, by its session id. */
  known: Record<number, SubagentInfo>;
  /** The subagents whose transcript the person opened, by their session id. */
  open: Record<number, NestedView>;
  onState(parentId: number, childId: number, state: SubagentState): void;
  /** Opens a subagent's transcript inside its card, or closes it. */
  toggle(childId: number): Promise<void>;
  /** Reads an open subagent's session and requests again. */
  refresh(childId: number): Promise<void>;
  /** An event of a subagent's own session (text, tool, request…): its open transcript is read again soon. */
  onChildEvent(childId: number): void;
}

/** Events come many a second while a subagent streams: its transcript is read again once per this many ms. */
const REFRESH_MS = 150;
const timers = new Map<number, ReturnType<typeof setTimeout>>();

/** The subagents of the task calls: their states from main's events, and the transcripts the person opened. */
export function subagentsSlice({ get, set, call }: SliceContext<SubagentsSlice>): SubagentsSlice {
  const isOpen = (childId: number) => get().open[childId] !== undefined;
  return {
    known: {},
    open: {},
    onState(parentId, childId, state) {
      const seen = get().known[childId];
      set((s) => ({ known: { ...s.known, [childId]: { ...seen, parentId, state } } }));
      if (!seen) {
        void call((api) => api.openSession(childId), { quiet: true }).then((got) => {
          const info = get().known[childId];
          if (got.ok && info) set((s) => ({ known: { ...s.known, [childId]: { ...info, title: got.value.summary.title } } }));
        });
      }
      get().onChildEvent(childId);
    },
    async toggle(childId) {
      if (isOpen(childId)) {
        set((s) => {
          const open = { ...s.open };
          delete open[childId];
          return { open };
        });
        return;
      }
      set((s) => ({ open: { ...s.open, [childId]: { requests: [] } } }));
      await get().refresh(childId);
    },
    async refresh(childId) {
      const [view, requests] = await Promise.all([call((api) => api.openSession(childId)), call((api) => api.requests(childId))]);
      if (!isOpen(childId)) return;
      set((s) => ({
        open: {
          ...s.open,
          [childId]: { view: view.ok ? view.value : s.open[childId]?.view, requests: requests.ok ? requests.value : (s.open[childId]?.requests ?? []) },
        },
      }));
    },
    onChildEvent(childId) {
      if (!isOpen(childId) || timers.has(childId)) return;
      timers.set(
        childId,
        setTimeout(() => {
          timers.delete(childId);
          void get().refresh(childId);
        }, REFRESH_MS),
      );
    },
  };
}
