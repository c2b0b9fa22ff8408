import type { KeelApi, KeelEvent } from '../../../main/contract.js';

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
