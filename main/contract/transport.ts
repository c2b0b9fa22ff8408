/**
 * What both transports share: the IPC channel names (Electron) and the reply to a call (IPC and
 * the loopback server's WebSocket). The preload script, main/ipc and main/server use these; no
 * channel name is spelled anywhere else.
 */

/** The one IPC channel for calls (renderer → main, invoke/handle). */
export const CALL_CHANNEL = 'keel:call';
/** The one IPC channel for events (main → renderer). */
export const EVENT_CHANNEL = 'keel:event';

/** What a call returns over either transport before the client turns it back into a promise. */
export type CallReply = { ok: true; value?: unknown } | { ok: false; error: string };
