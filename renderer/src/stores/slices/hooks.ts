import type { HooksView } from '../../../../main/contract.js';
import type { SliceContext } from '../slice.js';

export interface HooksSlice {
  /** The workspace the view is for. */
  workspace?: string;
  view?: HooksView;
  /** The approval is on its way: its button is disabled meanwhile. */
  approving: boolean;
  load(workspace: string): Promise<void>;
  refresh(): Promise<void>;
  /** Approves one workspace settings file (its path) as shown (its hash); main refuses a file changed since. */
  approve(file: string, hash: string): Promise<void>;
}

/** A panel's slice: the store's type learns its key here (slice.ts), its line in components/panels.ts makes it. */
declare module '../slice.js' {
  interface PanelSlices {
    hooks: HooksSlice;
  }
}

let seq = 0;

/** The hooks and rules beside the MCP servers (issues 26, 34): the open session's workspace's settings files as main reads them. */
export function hooksSlice({ get, set, call }: SliceContext<HooksSlice>): HooksSlice {
  return {
    approving: false,
    async load(workspace) {
      if (workspace !== get().workspace) set({ workspace, view: undefined });
      await get().refresh();
    },
    async refresh() {
      const { workspace } = get();
      if (workspace === undefined) return;
      const mine = ++seq;
      const got = await call((api) => api.hooks(workspace));
      if (mine === seq && got.ok) set({ view: got.value });
    },
    async approve(file, hash) {
      if (get().workspace === undefined) return;
      set({ approving: true });
      await call((api) => api.approveHooksFile(file, hash));
      set({ approving: false });
      await get().refresh();
    },
  };
}

/** What the Servers tab's badge counts of hooks: files that wait for approval or cannot load. */
export function hooksAttention(view: HooksView | undefined): number {
  return view?.files.filter((f) => f.needsApproval || f.problem !== undefined).length ?? 0;
}
