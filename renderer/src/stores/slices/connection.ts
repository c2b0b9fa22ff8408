import type { Connection } from '../../transport/types.js';
import type { SliceContext } from '../slice.js';

export interface ConnectionSlice {
  state: Connection;
  detail?: string;
  set(state: Connection, detail?: string): void;
}

/** The link to main: always connected in Electron; in browser mode it can drop and come back. */
export function connectionSlice({ set }: SliceContext<ConnectionSlice>): ConnectionSlice {
  return {
    state: 'connected',
    set: (state, detail) => set({ state, detail }),
  };
}
