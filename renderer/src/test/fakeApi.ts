import type { ContextView, DoctorReport, KeelEvent, PriceView, RecallView, RequestRow, SessionSummary, SessionView } from '../../../main/contract.js';
import { setApi, type KeelClient } from '../api.js';
import { panelSlices } from '../components/panels.js';
import { resetKeel, startKeel } from '../stores/store.js';
import type { EventListener } from '../transport/types.js';

/** A KeelClient whose methods tests override; `emit` plays main pushing an event. */
export function fakeApi(overrides: Partial<KeelClient> = {}): KeelClient & { emit(event: KeelEvent): void } {
  const listeners = new Set<EventListener>();
  const none = async () => undefined;
  const api = {
    getState: async () => ({ modelsFolder: '/models', dataFolder: '/data', loadedModel: '/models/tiny.gguf' }),
    listSessions: async () => [],
    createSession: async () => summary(),
    openSession: async () => sessionView(),
    deleteSession: none,
    send: none,
    stop: none,
    undo: none,
    regenerate: none,
    compact: none,
    setMode: none,
    recall: async () => {
      throw new Error('no recall in this test');
    },
    requests: async () => [],
    context: async () => contextView(),
    price: async () => priceView(),
    setAskAboveSeconds: async () => undefined,
    settings: async () => [],
    setSetting: async () => [],
    listModels: async () => [],
    setModelsFolder: none,
    loadModel: none,
    switchModel: none,
    answerApproval: none,
    pendingApprovals: async () => [],
    pickFolder: none,
    localSettings: async () => ({ backend: 'auto', gpuLayers: 'auto', contextSize: 'auto', threads: 'auto', kvCacheType: 'auto', checkpointMemory: 'auto', windowCache: 'auto' }),
    setLocalSettings: async () => ({ backend: 'auto', gpuLayers: 'auto', contextSize: 'auto', threads: 'auto', kvCacheType: 'auto', checkpointMemory: 'auto', windowCache: 'auto' }),
    doctor: async () => doctorReport(),
    mcpServers: async (workspace: string) => ({ workspace, files: [], servers: [] }),
    approveMcpFile: none,
    restartMcpServer: none,
    trustMcpServer: none,
    hooks: async (workspace: string) => ({ workspace, files: [], places: ['/data/settings.json', `${workspace}/.keel/settings.json`] }),
    approveHooksFile: none,
    serverModels: async () => [],
    useServerModel: async (url: string, model: string) => `${url}#${model}`,
    // Checkpoints: a session whose turns changed no file.
    changes: async (id: number) => ({ sessionId: id, turns: [], files: [] }),
    rewindPlan: async (_id: number, seq?: number) => ({ seq: seq ?? 1, canRewindFiles: true, putBack: [], left: [], large: [] }),
    // Background shells: a session that started none.
    shells: async () => [],
    shellOutput: async (_id: number, shellId: string) => {
      throw new Error(`Error: there is no background shell ${shellId} in this session; none was started.`);
    },
    stopShell: async (_id: number, shellId: string) => {
      throw new Error(`Error: there is no background shell ${shellId} in this session; none was started.`);
    },
    // Custom slash commands: a workspace without any.
    slashCommands: async () => [],
    // Project files: a workspace without any.
    projectFiles: async (workspace: string) => ({ workspace, files: [] }),
    onEvent(listener: EventListener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    ...overrides,
    emit(event: KeelEvent) {
      for (const l of listeners) l(event);
    },
  } as KeelClient & { emit(event: KeelEvent): void };
  setApi(api);
  return api;
}

export function summary(o: Partial<SessionSummary> = {}): SessionSummary {
  return { id: 1, kind: 'agent', workspace: '/code/ledger-api', title: 'Fix paging', model: '/models/tiny.gguf', mode: 'ask', turns: 1, createdAt: '2026-11-30T09:14:00Z', ...o };
}

export function sessionView(o: Partial<SessionView> = {}): SessionView {
  return { summary: summary(), turns: [], plan: [], planPending: false, systemPromptSha: '5be2d810aa', running: false, ...o };
}

export function recallView(o: Partial<RecallView> = {}): RecallView {
  return {
    id: '#0012', number: 18, tool: 'read', args: { path: 'src/app.ts' }, pathGiven: 'src/app.ts', pathResolved: '/code/ledger-api/src/app.ts',
    fileHash: '1c9e04ab7f3d22c190be5a61d0c4', kind: 'read', insertedAt: '2026-11-29T23:17:41Z', inRequest: true,
    inserted: '[#0012 src/app.ts lines 1-200 of 340 sha 1c9e04ab]\n1: import', offset: 1, lines: ['line 1', 'line 2'], totalLines: 2, pageSize: 2000, ...o,
  };
}

/** A next request of five parts: 400 tokens, 360 of them cached. */
export function contextView(o: Partial<ContextView> = {}): ContextView {
  const part = (label: string, kind: ContextView['parts'][number]['kind'], tokens: number, cachedTokens: number, tokensRereadIfGone: number, more = {}) =>
    ({ label, kind, tokens, cachedTokens, newTokens: tokens - cachedTokens, tokensRereadIfGone, located: true, ...more });
  return {
    request: 'next message', promptTokens: 400, cachedTokens: 360, newTokens: 40, contextSize: 8192, exact: true,
    parts: [
      part('system prompt', 'system', 100, 100, 300),
      part('tool list (2 tools)', 'tools', 150, 150, 150),
      part('turn 1 message', 'message', 20, 20, 130, { turn: 1 }),
      part('turn 1 result #0001 (read)', 'result', 90, 90, 40, { turn: 1, result: 1, tool: 'read' }),
      part('next message (template text and a one-character stand-in for your words)', 'next', 40, 0, 0),
    ],
    ...o,
  };
}

/** A price below any limit: what Undo re-reads when the cache still holds everything before its turn. */
export function priceView(o: Partial<PriceView> = {}): PriceView {
  return { action: 'take back', tokens: 12, nextTokens: 20, start: 900, seconds: 0.1, exact: true, text: 're-reads 12 tokens, about 0.1 s on this machine', asks: false, ...o } as PriceView;
}

export function requestRow(o: Partial<RequestRow> = {}): RequestRow {
  return {
    id: 1, sessionId: 1, kind: 'turn', model: '/models/a.gguf', promptTokens: 1000, reusedTokens: 800, newTokens: 200, outputTokens: 50,
    cachedBefore: 800, prefillMs: 300, generationMs: 900, systemSha: 'a41f9c07deadbeef', toolsSha: 'ffff', createdAt: '2026-11-30T09:00:00Z', ...o,
  };
}

/** A doctor report: a CPU machine without a model unless `o` gives one. */
export function doctorReport(o: Partial<DoctorReport> = {}): DoctorReport {
  return {
    settings: { backend: 'auto', gpuLayers: 'auto', contextSize: 'auto', threads: 'auto', kvCacheType: 'auto', checkpointMemory: 'auto', windowCache: 'auto' },
    options: { backends: ['auto', 'cpu'], kvCacheTypes: ['auto', 'f16', 'q8_0', 'q4_0'], windowCaches: ['auto', 'full', 'checkpoints'] },
    machine: {
      setting: 'auto', backend: 'CPU', why: 'node-llama-cpp looked for CUDA and Vulkan and found no usable GPU; the CPU runs the model.',
      gpuBackendsShipped: ['cuda', 'vulkan'], devices: [], ram: { total: 25_000_000_000, free: 20_000_000_000, usable: 24_000_000_000 },
      cpuMathCores: 2, llamaCpp: 'v0.4.0',
    },
    ...o,
  };
}

/** Puts the store, with the panels' slices, back to its first state (it is a module singleton). */
export function resetStores(): void {
  startKeel(panelSlices);
  resetKeel();
}
