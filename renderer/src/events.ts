import type { KeelEvent } from '../../main/contract.js';
import { useApprovals } from './stores/useApprovals.js';
import { report } from './stores/useErrors.js';
import { useModel } from './stores/useModel.js';
import { useRequests } from './stores/useRequests.js';
import { useServers } from './stores/useServers.js';
import { useSessions } from './stores/useSessions.js';
import { useTranscript } from './stores/useTranscript.js';

type Handlers = { [K in KeelEvent['type']]: (event: Extract<KeelEvent, { type: K }>) => void };

const isOpen = (sessionId: number) => useTranscript.getState().sessionId === sessionId;

let listTimer: ReturnType<typeof setTimeout> | undefined;
/** Session list refreshes coalesce: a run sends several session-changed events. */
function refreshListSoon(): void {
  if (listTimer) return;
  listTimer = setTimeout(() => {
    listTimer = undefined;
    void useSessions.getState().refresh();
  }, 150);
}

/** One handler per event main pushes; each store mirrors, none computes. */
const handlers: Handlers = {
  'session-changed': (e) => {
    refreshListSoon();
    if (isOpen(e.sessionId)) void useTranscript.getState().reload();
  },
  'sessions-changed': () => refreshListSoon(),
  message: (e) => {
    if (isOpen(e.sessionId)) useTranscript.getState().onMessage();
  },
  text: (e) => {
    if (isOpen(e.sessionId)) useTranscript.getState().onText(e.delta);
  },
  tool: (e) => {
    if (isOpen(e.sessionId)) useTranscript.getState().onTool(e.tool);
  },
  request: (e) => useRequests.getState().add(e.sessionId, e.request),
  'turn-ended': (e) => {
    refreshListSoon();
    if (isOpen(e.sessionId)) void useTranscript.getState().onTurnEnded();
  },
  'model-progress': (e) => useModel.getState().onProgress(e.path, e.fraction),
  'model-loaded': (e) => useModel.getState().onLoaded(e.path),
  error: (e) => report(e.message),
  approval: (e) => useApprovals.getState().add(e.approval),
  'approval-answered': (e) => useApprovals.getState().remove(e.approvalId),
  'mcp-changed': (e) => useServers.getState().onChanged(e.workspace),
  'mcp-progress': ({ type: _type, ...progress }) => useServers.getState().onProgress(progress),
};

export function dispatch(event: KeelEvent): void {
  const handler = handlers[event.type] as ((e: KeelEvent) => void) | undefined;
  if (handler) handler(event);
}
