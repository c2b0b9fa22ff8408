import type { KeelApi, KeelEvent, KeelMethod } from '../../../main/contract.js';

export type EventListener = (event: KeelEvent) => void;
export type Connection = 'connecting' | 'connected' | 'disconnected';
export type ConnectionListener = (state: Connection, detail?: string) => void;

/** What the renderer talks to, over IPC (Electron) or a WebSocket (browser mode): the contract plus events. */
export type KeelClient = KeelApi & {
  /** Every event main pushes; returns the unsubscribe function. */
  onEvent(listener: EventListener): () => void;
  /** The link's state (IPC is always connected); returns the unsubscribe function. */
  onConnection?(listener: ConnectionListener): () => void;
};

/**
 * The contract's method names as values. The renderer may import only types from main, so the
 * list lives here too; `satisfies Record<KeelMethod, true>` makes a method added to KeelApi and
 * missing here a compile error.
 */
const METHOD_SET = {
  getState: true, listSessions: true, createSession: true, openSession: true, deleteSession: true,
  send: true, stop: true, undo: true, regenerate: true, compact: true, setMode: true, recall: true,
  requests: true, listModels: true, setModelsFolder: true, loadModel: true, switchModel: true,
  answerApproval: true, pendingApprovals: true, downloadModel: true, setPlan: true, pickFolder: true,
  rewind: true, editAndResend: true, deleteTurn: true,
  localSettings: true, setLocalSettings: true, doctor: true,
  mcpServers: true, approveMcpFile: true, restartMcpServer: true, trustMcpServer: true,
  serverModels: true, useServerModel: true,
} as const satisfies Record<KeelMethod, true>;

export const METHODS = Object.keys(METHOD_SET) as KeelMethod[];
