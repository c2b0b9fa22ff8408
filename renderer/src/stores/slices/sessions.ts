import type { Mode, SessionKind, SessionSummary } from '../../../../main/contract.js';
import type { SliceContext } from '../slice.js';
import type { UiSlice } from './ui.js';
import type { TranscriptSlice } from './transcript.js';
import type { InspectorSlice } from './inspector.js';
import type { RequestsSlice } from './requests.js';

export interface SessionsSlice {
  list: SessionSummary[];
  currentId?: number;
  loaded: boolean;
  refresh(): Promise<void>;
  open(id: number): Promise<void>;
  create(o: { workspace: string; kind: SessionKind; mode?: Mode; title?: string }): Promise<SessionSummary | undefined>;
  remove(id: number): Promise<void>;
}

/** The session list, newest first as main gives it, and which session is open. */
export function sessionsSlice({ get, set, root, call }: SliceContext<SessionsSlice, { inspector: InspectorSlice; transcript: TranscriptSlice; requests: RequestsSlice; ui: UiSlice }>): SessionsSlice {
  return {
    list: [],
    loaded: false,
    async refresh() {
      const got = await call((api) => api.listSessions());
      if (got.ok) set({ list: got.value, loaded: true });
    },
    async open(id) {
      set({ currentId: id });
      root().inspector.reset();
      await Promise.all([root().transcript.load(id), root().requests.load(id)]);
    },
    async create(o) {
      const got = await call((api) => api.createSession(o), { about: 'session' });
      if (!got.ok) return undefined;
      await get().refresh();
      await get().open(got.value.id);
      root().ui.sessionChosen();
      return got.value;
    },
    async remove(id) {
      const got = await call((api) => api.deleteSession(id));
      if (!got.ok) return;
      if (get().currentId === id) {
        set({ currentId: undefined });
        root().transcript.clear();
        root().requests.clear();
        root().inspector.reset();
        // Recall is a session's: with none open, the inspector closes (its button is disabled).
        root().ui.closeInspector();
      }
      await get().refresh();
    },
  };
}
