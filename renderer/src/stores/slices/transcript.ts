import type { KeelClient } from '../../api.js';
import type { FilesPutBack, Mode, ReplyPart, SessionView, ToolView } from '../../../../main/contract.js';
import type { Outcome, SliceContext } from '../slice.js';
import type { ChangesSlice } from './changes.js';

type PlanItem = SessionView['plan'][number];

/**
 * What streamed in since the view was last loaded: the open turn's parts, in order. Main streams
 * a reply's words only, never its call markup, so text and tools simply append.
 */
export interface Live {
  parts: ReplyPart[];
}

export interface TranscriptSlice {
  sessionId?: number;
  view?: SessionView;
  loading: boolean;
  /** True from the moment the person asks for model work until main says the turn ended. */
  running: boolean;
  live?: Live;
  /** The words just sent, shown until main's view has the turn. */
  pending?: string;
  /** Tool results the person unfolded, by id. */
  unfolded: Record<string, true>;
  /** Words for the message box (a rewound message), with a counter so the same words land again. */
  draft?: { text: string; n: number };
  load(sessionId: number): Promise<void>;
  reload(): Promise<void>;
  clear(): void;
  send(text: string): Promise<void>;
  stop(): Promise<void>;
  /** Takes back the last completed turn; with `files`, what it changed too (the Changes slice's notice says what). */
  undo(files?: boolean): Promise<void>;
  /** Takes back turn `seq` and every later turn (with their files, if `files`); its words go back into the message box. */
  rewind(seq: number, files?: boolean): Promise<void>;
  /** Takes back turn `seq` and every later turn (with their files, if `files`), and sends `text` in its place. */
  editAndResend(seq: number, text: string, files?: boolean): Promise<void>;
  /** Takes back turn `seq` alone (main refuses, with why, where the spec does not allow it). */
  deleteTurn(seq: number): Promise<void>;
  /** The person's plan; the model hears of it with the next message. */
  setPlan(items: PlanItem[]): Promise<void>;
  regenerate(): Promise<void>;
  compact(): Promise<void>;
  setMode(mode: Mode): Promise<void>;
  toggleFold(id: string): void;
  onMessage(): void;
  onText(delta: string): void;
  onTool(tool: ToolView): void;
  onTurnEnded(): Promise<void>;
}

let loadSeq = 0;
let latestReload: Promise<void> = Promise.resolve();

/** The open session's transcript: main's SessionView plus what streams in while a turn runs. */
export function transcriptSlice({ get, set, call, root }: SliceContext<TranscriptSlice, { changes: ChangesSlice }>): TranscriptSlice {
  /** Runs model work (send, regenerate, compact): resolves when main says the turn ended. */
  const work = async (run: (api: KeelClient, id: number) => Promise<unknown>, pending?: string) => {
    const id = get().sessionId;
    if (id === undefined) return;
    set({ running: true, pending });
    await call((api) => run(api, id));
    // The call settles when the turn has ended (or never started): the same as `turn-ended`,
    // which over IPC may arrive before or after this reply.
    if (get().sessionId === id) await get().onTurnEnded();
  };
  /** A change to the open session (undo, rewind, mode…): the view is read again after, whatever happened. */
  const simple = async <T>(run: (api: KeelClient, id: number) => Promise<T>): Promise<Outcome<T>> => {
    const id = get().sessionId;
    if (id === undefined) return { ok: false, error: 'No session is open.' };
    const got = await call((api) => run(api, id));
    if (get().sessionId === id) await get().reload();
    return got;
  };
  /** A take-back with files: what main put back (and left) goes to the Changes slice's notice. */
  const withFiles = (id: number | undefined, got: Outcome<FilesPutBack | undefined>) => {
    if (id !== undefined && got.ok) root().changes.putBack(id, got.value);
  };

  /** The parts live text and tools append to: the open turn's, copied, when nothing streamed yet. */
  const liveParts = (): ReplyPart[] => {
    const live = get().live;
    if (live) return live.parts;
    const last = get().view?.turns.at(-1);
    return last?.status === 'open' ? [...last.parts] : [];
  };

  return {
    loading: false,
    running: false,
    unfolded: {},
    async load(sessionId) {
      if (get().sessionId !== sessionId) set({ sessionId, view: undefined, live: undefined, pending: undefined, running: false, unfolded: {}, draft: undefined });
      await get().reload();
    },
    async reload() {
      const id = get().sessionId;
      if (id === undefined) return;
      const seq = ++loadSeq;
      set({ loading: true });
      let current = (async () => {
        const got = await call((api) => api.openSession(id));
        if (!got.ok) {
          if (seq === loadSeq) set({ loading: false });
          return;
        }
        const view = got.value;
        if (seq !== loadSeq || get().sessionId !== id) return;
        const hasOpenTurn = view.turns.at(-1)?.status === 'open';
        set({ view, loading: false, running: view.running || get().running, pending: hasOpenTurn ? undefined : get().pending });
      })();
      latestReload = current;
      await current;
      // A later reload superseded this one (its answer was dropped): settle once the newest view
      // has landed, so that after reload() the view is never older than when it was called
      // (the turn's end clears the streamed parts only then).
      while (latestReload !== current) {
        current = latestReload;
        await current;
      }
    },
    clear: () => set({ sessionId: undefined, view: undefined, live: undefined, pending: undefined, running: false, unfolded: {}, draft: undefined }),
    send: (text) => work((api, id) => api.send(id, text), text),
    stop: async () => {
      const id = get().sessionId;
      if (id !== undefined) await call((api) => api.stop(id));
    },
    undo: async (files = false) => {
      const id = get().sessionId;
      withFiles(id, await simple((api, at) => api.undo(at, files)));
    },
    async rewind(seq, files = false) {
      const id = get().sessionId;
      const words = get().view?.turns.find((t) => t.seq === seq)?.words;
      const got = await simple((api, at) => api.rewind(at, seq, files));
      withFiles(id, got);
      if (got.ok && words) set({ draft: { text: words, n: (get().draft?.n ?? 0) + 1 } });
    },
    editAndResend: (seq, text, files = false) => {
      // The turns being replaced leave the view at once; main's view confirms it when it lands.
      const view = get().view;
      if (view) set({ view: { ...view, turns: view.turns.filter((t) => t.seq < seq) } });
      return work(async (api, id) => withFiles(id, { ok: true, value: await api.editAndResend(id, seq, text, files) }), text);
    },
    deleteTurn: async (seq) => {
      await simple((api, id) => api.deleteTurn(id, seq));
    },
    setPlan: async (items) => {
      await simple((api, id) => api.setPlan(id, items));
    },
    regenerate: () => work((api, id) => api.regenerate(id)),
    compact: () => work((api, id) => api.compact(id)),
    setMode: async (mode) => {
      await simple((api, id) => api.setMode(id, mode));
    },
    toggleFold: (id) =>
      set((s) => {
        const unfolded = { ...s.unfolded };
        if (unfolded[id]) delete unfolded[id];
        else unfolded[id] = true;
        return { unfolded };
      }),
    onMessage() {
      set({ live: { parts: [] }, running: true });
      void get().reload();
    },
    onText(delta) {
      const parts = liveParts();
      const last = parts.at(-1);
      const live: Live = last?.type === 'text'
        ? { parts: [...parts.slice(0, -1), { type: 'text', text: last.text + delta }] }
        : { parts: [...parts, { type: 'text', text: delta }] };
      set({ live, running: true });
    },
    onTool(tool) {
      set({ live: { parts: [...liveParts(), { type: 'tool', tool }] }, running: true });
    },
    async onTurnEnded() {
      await get().reload();
      set({ live: undefined, pending: undefined, running: get().view?.running ?? false });
    },
  };
}
