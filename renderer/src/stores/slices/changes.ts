import type { KeelClient } from '../../api.js';
import type { ChangesView, FilesPutBack, RewindPlanView } from '../../../../main/contract.js';
import type { SliceContext } from '../slice.js';

/** What the last rewind with files did, for its notice. */
export interface PutBackNotice {
  sessionId: number;
  result: FilesPutBack;
}

export interface ChangesSlice {
  sessionId?: number;
  /** The base the view is against: turn `since`'s start; undefined for the session's start. */
  since?: number;
  view?: ChangesView;
  loading: boolean;
  /** A revert running: the buttons wait. */
  busy: boolean;
  /** Main's refusal of the last revert, shown in the view. */
  error?: string;
  notice?: PutBackNotice;
  load(sessionId: number, since?: number): Promise<void>;
  refresh(): Promise<void>;
  revertFile(path: string): Promise<void>;
  revertHunk(path: string, hunk: number, shown: string): Promise<void>;
  /** What a rewind to turn `seq` (default: the turn Undo takes back) with files would do; undefined where main refused. */
  plan(sessionId: number, seq?: number): Promise<RewindPlanView | undefined>;
  /** A rewind with files ended: its notice says what went back and what was left. */
  putBack(sessionId: number, result: FilesPutBack | undefined): void;
  dismissNotice(): void;
  /** The session changed (a turn ended, a rewind): the view, if it is this session's, is read again. */
  onSessionChanged(sessionId: number): void;
}

/** A panel's slice: the store's type learns its key here (slice.ts), its line in components/panels.ts makes it. */
declare module '../slice.js' {
  interface PanelSlices {
    changes: ChangesSlice;
  }
}

let seq = 0;

/** The Changes tab: the files the open session changed, as main reports them, and its reverts. */
export function changesSlice({ get, set, call }: SliceContext<ChangesSlice>): ChangesSlice {
  /** A revert: its refusal shows in the view (quiet), and the view is main's answer either way. */
  const revert = async (work: (api: KeelClient, id: number, since: number | undefined) => Promise<ChangesView>) => {
    const { sessionId, since } = get();
    if (sessionId === undefined) return;
    set({ busy: true, error: undefined });
    const got = await call((api) => work(api, sessionId, since), { quiet: true });
    if (get().sessionId !== sessionId) return;
    set(got.ok ? { busy: false, view: got.value } : { busy: false, error: got.error });
    if (!got.ok) await get().refresh();
  };
  return {
    loading: false,
    busy: false,
    async load(sessionId, since) {
      if (sessionId !== get().sessionId || since !== get().since) set({ sessionId, since, view: undefined, error: undefined });
      await get().refresh();
    },
    async refresh() {
      const { sessionId, since } = get();
      if (sessionId === undefined) return;
      const mine = ++seq;
      set({ loading: true });
      const got = await call((api) => api.changes(sessionId, since));
      if (mine !== seq) return;
      set(got.ok ? { view: got.value, loading: false } : { loading: false });
    },
    revertFile: (path) => revert((api, id, since) => api.revertFile(id, path, since)),
    revertHunk: (path, hunk, shown) => revert((api, id, since) => api.revertHunk(id, path, hunk, shown, since)),
    async plan(sessionId, at) {
      const got = await call((api) => api.rewindPlan(sessionId, at));
      return got.ok ? got.value : undefined;
    },
    putBack(sessionId, result) {
      if (result) set({ notice: { sessionId, result } });
      get().onSessionChanged(sessionId);
    },
    dismissNotice: () => set({ notice: undefined }),
    onSessionChanged(sessionId) {
      if (sessionId === get().sessionId) void get().refresh();
    },
  };
}
