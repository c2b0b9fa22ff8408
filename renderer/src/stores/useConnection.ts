import { create } from 'zustand';
import type { Connection } from '../transport/types.js';

interface ConnectionState {
  state: Connection;
  detail?: string;
  set(state: Connection, detail?: string): void;
}

/** The link to main: always connected in Electron; in browser mode it can drop and come back. */
export const useConnection = create<ConnectionState>()((set) => ({
  state: 'connected',
  set: (state, detail) => set({ state, detail }),
}));
