import { create } from 'zustand';
import type { Mode, SessionKind, SessionSummary } from '../../../main/contract.js';
import { getApi } from '../api.js';
import { report } from './useErrors.js';
import { useInspector } from './useInspector.js';
import { useRequests } from './useRequests.js';
import { useTranscript } from './useTranscript.js';
import { useUi } from './useUi.js';

interface SessionsState {
  list: SessionSummary[];
  currentId?: number;
  loaded: boolean;
  refresh(): Promise<void>;
  open(id: number): Promise<void>;
  create(o: { workspace: string; kind: SessionKind; mode?: Mode; title?: string }): Promise<SessionSummary | undefined>;
  remove(id: number): Promise<void>;
}

/** The session list, newest first as main gives it, and which session is open. */
export const useSessions = create<SessionsState>()((set, get) => ({
  list: [],
  loaded: false,
  async refresh() {
    try {
      set({ list: await getApi().listSessions(), loaded: true });
    } catch (err) {
      report(err);
    }
  },
  async open(id) {
    set({ currentId: id });
    useInspector.getState().reset();
    await Promise.all([useTranscript.getState().load(id), useRequests.getState().load(id)]);
  },
  async create(o) {
    try {
      const summary = await getApi().createSession(o);
      await get().refresh();
      await get().open(summary.id);
      return summary;
    } catch (err) {
      report(err);
      return undefined;
    }
  },
  async remove(id) {
    try {
      await getApi().deleteSession(id);
      if (get().currentId === id) {
        set({ currentId: undefined });
        useTranscript.getState().clear();
        useRequests.getState().clear();
        useInspector.getState().reset();
        // Recall is a session's: with none open, the inspector closes (its button is disabled).
        useUi.getState().closeInspector();
      }
      await get().refresh();
    } catch (err) {
      report(err);
    }
  },
}));
