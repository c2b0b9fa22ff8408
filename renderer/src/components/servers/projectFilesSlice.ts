import type { ProjectFilesView } from '../../../../main/contract.js';
import type { SliceContext } from '../../stores/slice.js';

export interface ProjectFilesSlice {
  /** The workspace the view is for. */
  workspace?: string;
  view?: ProjectFilesView;
  /** Reads the workspace's project files again (a file edited or approved since shows as it is now). */
  load(workspace: string): Promise<void>;
}

/** A panel's slice: the store's type learns its key here (stores/slice.ts), its line in components/panels.ts makes it. */
declare module '../../stores/slice.js' {
  interface PanelSlices {
    projectFiles: ProjectFilesSlice;
  }
}

let seq = 0;

/** The Servers tab's list of project files (issue 34): which the open session's workspace has, and what Keel made of each. */
export function projectFilesSlice({ get, set, call }: SliceContext<ProjectFilesSlice>): ProjectFilesSlice {
  return {
    async load(workspace) {
      if (workspace !== get().workspace) set({ workspace, view: undefined });
      const mine = ++seq;
      const got = await call((api) => api.projectFiles(workspace), { about: 'project files' });
      if (mine === seq && got.ok) set({ view: got.value });
    },
  };
}
