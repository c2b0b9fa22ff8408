import type { KeelEvent } from '../../main/contract.js';
import { useKeel } from './stores/store.js';

type Handlers = { [K in KeelEvent['type']]: (event: Extract<KeelEvent, { type: K }>) => void };

const state = () => useKeel.getState();
const isOpen = (sessionId: number) => state().transcript.sessionId === sessionId;
/** A subagent's transcript, open inside its task card, follows its session's events. */
const childFollows = (sessionId: number) => state().subagents.onChildEvent(sessionId);

/** The Changes tab, where it is the one shown, follows the session's files (a turn, a rewind). */
function changesFollow(sessionId: number): void {
  if (state().ui.tab === 'changes') state().changes.onSessionChanged(sessionId);
}

let listTimer: ReturnType<typeof setTimeout> | undefined;
/** Session list refreshes coalesce: a run sends several session-changed events. */
function refreshListSoon(): void {
  if (listTimer) return;
  listTimer = setTimeout(() => {
    listTimer = undefined;
    void state().sessions.refresh();
  }, 150);
}

/** One handler per event main pushes; each store mirrors, none computes. */
const handlers: Handlers = {
  'session-changed': (e) => {
    refreshListSoon();
    if (isOpen(e.sessionId)) void state().transcript.reload();
    changesFollow(e.sessionId);
    childFollows(e.sessionId);
  },
  'sessions-changed': () => refreshListSoon(),
  message: (e) => {
    if (isOpen(e.sessionId)) state().transcript.onMessage();
    childFollows(e.sessionId);
  },
  text: (e) => {
    if (isOpen(e.sessionId)) state().transcript.onText(e.delta);
    childFollows(e.sessionId);
  },
  // The transcript shows a call with its result; an editor over ACP shows it as it starts.
  'tool-started': () => undefined,
  tool: (e) => {
    if (isOpen(e.sessionId)) state().transcript.onTool(e.tool);
    childFollows(e.sessionId);
  },
  request: (e) => {
    state().requests.add(e.sessionId, e.request);
    childFollows(e.sessionId);
  },
  'turn-ended': (e) => {
    refreshListSoon();
    if (isOpen(e.sessionId)) void state().transcript.onTurnEnded();
    changesFollow(e.sessionId);
  },
  'model-progress': (e) => state().model.onProgress(e.path, e.fraction),
  'model-loaded': (e) => state().model.onLoaded(e.path),
  error: (e) => state().errors.push(e.message),
  approval: (e) => state().approvals.add(e.approval),
  'approval-answered': (e) => state().approvals.remove(e.approvalId),
  'mcp-changed': (e) => state().servers.onChanged(e.workspace),
  'shells-changed': (e) => state().processes.onChanged(e.sessionId),
  // Shown on the task call's card (its transcript one click away).
  subagent: (e) => state().subagents.onState(e.sessionId, e.childId, e.state),
  'mcp-progress': ({ type: _type, ...progress }) => state().servers.onProgress(progress),
};

export function dispatch(event: KeelEvent): void {
  const handler = handlers[event.type] as ((e: KeelEvent) => void) | undefined;
  if (handler) handler(event);
}
