import type { ShellOutputView, ShellSummary } from '../../../../main/contract.js';
import type { SliceContext } from '../../stores/slice.js';

export interface ProcessesSlice {
  /** The session the list is for. */
  sessionId?: number;
  shells: ShellSummary[];
  /** The shell whose output is shown (default: the newest). */
  selected?: string;
  output?: ShellOutputView;
  /** Stops on their way: their buttons wait. */
  stopping: Record<string, boolean>;
  /** Main's answer to the last Stop (kill_shell's text), or why it was refused. */
  said?: string;
  load(sessionId: number): Promise<void>;
  refresh(): Promise<void>;
  select(id: string): Promise<void>;
  /** Reads the selected shell's output again (the panel does, while it runs). */
  readOutput(): Promise<void>;
  stop(id: string): Promise<void>;
  /** Main said one of the session's shells started or ended. */
  onChanged(sessionId: number): void;
}

/** A panel's slice: the store's type learns its key here (stores/slice.ts), its line in components/panels.ts makes it. */
declare module '../../stores/slice.js' {
  interface PanelSlices {
    processes: ProcessesSlice;
  }
}

let seq = 0;
let outputSeq = 0;

/** The Processes tab: the open session's background shells as main reports them, one's output, and Stop. */
export function processesSlice({ get, set, call }: SliceContext<ProcessesSlice>): ProcessesSlice {
  return {
    shells: [],
    stopping: {},
    async load(sessionId) {
      if (sessionId !== get().sessionId) set({ sessionId, shells: [], selected: undefined, output: undefined, said: undefined });
      await get().refresh();
    },
    async refresh() {
      const { sessionId } = get();
      if (sessionId === undefined) return;
      const mine = ++seq;
      const got = await call((api) => api.shells(sessionId));
      if (mine !== seq || !got.ok || get().sessionId !== sessionId) return;
      const shells = got.value;
      const selected = shells.some((s) => s.id === get().selected) ? get().selected : shells.at(-1)?.id;
      set({ shells, selected });
      await get().readOutput();
    },
    async select(id) {
      set({ selected: id, output: undefined });
      await get().readOutput();
    },
    async readOutput() {
      const { sessionId, selected } = get();
      if (sessionId === undefined || selected === undefined) return set({ output: undefined });
      const mine = ++outputSeq;
      const got = await call((api) => api.shellOutput(sessionId, selected), { quiet: true });
      if (mine === outputSeq && got.ok && get().sessionId === sessionId && get().selected === selected) set({ output: got.value });
    },
    async stop(id) {
      const { sessionId } = get();
      if (sessionId === undefined) return;
      set((s) => ({ stopping: { ...s.stopping, [id]: true }, said: undefined }));
      const got = await call((api) => api.stopShell(sessionId, id), { quiet: true });
      set((s) => ({ stopping: { ...s.stopping, [id]: false }, said: got.ok ? got.value : got.error }));
      await get().refresh();
    },
    onChanged(sessionId) {
      if (sessionId === get().sessionId) void get().refresh();
    },
  };
}

/** Running shells: the tab's badge. */
export const runningCount = (shells: readonly ShellSummary[]): number => shells.filter((s) => s.state === 'running').length;
