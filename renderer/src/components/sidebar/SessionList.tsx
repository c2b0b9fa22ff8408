import { useMemo, useState } from 'react';
import type { SessionSummary } from '../../../../main/contract.js';
import { shortDate } from '../../lib/format.js';
import { useKeel } from '../../stores/store.js';

/** Sessions grouped by workspace folder, newest group first; a chat without a folder goes last. */
export function groupByWorkspace(list: SessionSummary[]): { workspace: string; sessions: SessionSummary[] }[] {
  const groups = new Map<string, SessionSummary[]>();
  for (const s of list) groups.set(s.workspace, [...(groups.get(s.workspace) ?? []), s]);
  return [...groups.entries()]
    .sort(([a], [b]) => Number(a === '') - Number(b === ''))
    .map(([workspace, sessions]) => ({ workspace, sessions }));
}

export function SessionList() {
  const list = useKeel((s) => s.sessions.list);
  const [filter, setFilter] = useState('');
  const shown = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return f ? list.filter((s) => `${s.title} ${s.workspace}`.toLowerCase().includes(f)) : list;
  }, [list, filter]);
  const groups = useMemo(() => groupByWorkspace(shown), [shown]);
  return (
    <div className="session-list">
      <input
        className="filter"
        placeholder="Filter sessions"
        value={filter}
        onChange={(e) => setFilter(e.target.value)}
        data-testid="session-filter"
        aria-label="Filter sessions"
      />
      {groups.map((group) => (
        <section key={group.workspace} className="session-group">
          <h3 title={group.workspace}>
            {group.workspace ? (
              <>
                <span className="group-name">{group.workspace.split(/[\\/]/).filter(Boolean).pop()}</span>
                <span className="group-path">{group.workspace}</span>
              </>
            ) : (
              <span className="group-name">Chats without a folder</span>
            )}
          </h3>
          <ul>
            {group.sessions.map((s) => (
              <SessionItem key={s.id} session={s} />
            ))}
          </ul>
        </section>
      ))}
      {list.length === 0 && <p className="muted small">No sessions yet: start one above.</p>}
    </div>
  );
}

function SessionItem({ session }: { session: SessionSummary }) {
  const currentId = useKeel((s) => s.sessions.currentId);
  const [confirming, setConfirming] = useState(false);
  const waiting = useKeel((s) => s.approvals.items.some((a) => a.sessionId === session.id));
  const active = currentId === session.id;
  return (
    <li className={`session-item${active ? ' active' : ''}`} data-testid={`session-item-${session.id}`} data-kind={session.kind}>
      <button type="button" className="session-open" onClick={() => {
          useKeel.getState().ui.sessionChosen();
          void useKeel.getState().sessions.open(session.id);
        }} aria-current={active}>
        <span className="session-title">{session.title}</span>
        <span className="session-meta">
          <span className={`kind kind-${session.kind}`}>{session.kind === 'agent' ? 'AGENT' : 'CHAT'}</span>
          <span>
            {session.turns} {session.turns === 1 ? 'turn' : 'turns'} · {session.mode}
          </span>
          <span className="session-date">{shortDate(session.createdAt)}</span>
        </span>
        {waiting && (
          <span className="needs-approval small" data-testid={`session-needs-approval-${session.id}`}>
            ● needs approval
          </span>
        )}
      </button>
      {confirming ? (
        <span className="confirm">
          <span>Delete with its results?</span>
          <button type="button" className="danger small" data-testid={`session-delete-confirm-${session.id}`} onClick={() => void useKeel.getState().sessions.remove(session.id)}>
            Delete
          </button>
          <button type="button" className="small" onClick={() => setConfirming(false)}>
            Keep
          </button>
        </span>
      ) : (
        <button
          type="button"
          className="ghost small session-delete"
          title="Delete this session"
          aria-label={`Delete ${session.title}`}
          data-testid={`session-delete-${session.id}`}
          onClick={() => setConfirming(true)}
        >
          ×
        </button>
      )}
    </li>
  );
}
