import type { KeelClient } from '../../api.js';
import type { KeelEvent, McpServersView } from '../../../../main/contract.js';
import type { SliceContext } from '../slice.js';

type Progress = Omit<Extract<KeelEvent, { type: 'mcp-progress' }>, 'type'>;

export interface ServersSlice {
  /** The workspace and session the view is for. */
  workspace?: string;
  sessionId?: number;
  view?: McpServersView;
  loading: boolean;
  /** An action running, by server name (or 'approve'): its button is disabled meanwhile. */
  busy: Record<string, true>;
  /** The last progress of a running MCP call, by session. */
  progress: Record<number, Progress>;
  load(workspace: string, sessionId?: number): Promise<void>;
  refresh(): Promise<void>;
  approve(hash: string): Promise<void>;
  restart(name: string): Promise<void>;
  trust(name: string, trusted: boolean): Promise<void>;
  onChanged(workspace: string): void;
  onProgress(progress: Progress): void;
}

/** A panel's slice: the store's type learns its key here (slice.ts), its line in components/panels.ts makes it. */
declare module '../slice.js' {
  interface PanelSlices {
    servers: ServersSlice;
  }
}

let seq = 0;

/** The Servers panel: the open session's workspace's MCP servers as main reports them. */
export function serversSlice({ get, set, call }: SliceContext<ServersSlice>): ServersSlice {
  /** An action on the workspace's servers, its button disabled meanwhile; the view is read again after. */
  const act = async (key: string, work: (api: KeelClient, workspace: string) => Promise<void>) => {
    const workspace = get().workspace;
    if (workspace === undefined) return;
    set((s) => ({ busy: { ...s.busy, [key]: true } }));
    await call((api) => work(api, workspace));
    set((s) => {
      const { [key]: _done, ...busy } = s.busy;
      return { busy };
    });
    await get().refresh();
  };
  return {
    loading: false,
    busy: {},
    progress: {},
    async load(workspace, sessionId) {
      if (workspace !== get().workspace || sessionId !== get().sessionId) set({ workspace, sessionId, view: undefined });
      await get().refresh();
    },
    async refresh() {
      const { workspace, sessionId } = get();
      if (workspace === undefined) return;
      const mine = ++seq;
      set({ loading: true });
      const got = await call((api) => api.mcpServers(workspace, sessionId));
      if (mine === seq) set(got.ok ? { view: got.value, loading: false } : { loading: false });
    },
    approve: (hash) => act('approve', (api, workspace) => api.approveMcpFile(workspace, hash)),
    restart: (name) => act(name, (api, workspace) => api.restartMcpServer(workspace, name)),
    trust: (name, trusted) => act(name, (api, workspace) => api.trustMcpServer(workspace, name, trusted)),
    onChanged(workspace) {
      if (workspace === get().view?.workspace) void get().refresh();
    },
    onProgress: (p) => set((s) => ({ progress: { ...s.progress, [p.sessionId]: p } })),
  };
}

/** What the Servers tab's badge counts: servers that need the person, and tools waiting for the next session. */
export function attention(view: McpServersView | undefined): { problems: number; waiting: number } {
  if (!view) return { problems: 0, waiting: 0 };
  const problems = view.files.filter((f) => f.needsApproval || f.problems.length > 0).length
    + view.servers.filter((s) => s.state === 'failed' || s.state === 'disconnected').length;
  return { problems, waiting: view.servers.reduce((n, s) => n + (s.waiting?.length ?? 0), 0) };
}
