import { useState, type FormEvent } from 'react';
import { MODES, type Mode, type SessionKind } from '../../../../main/contract.js';
import { callMain, useKeel } from '../../stores/store.js';

/** Starts a session: a workspace folder (the agent's root), agent or chat, and a mode. */
export function NewSessionForm({ onDone }: { onDone(): void }) {
  const [workspace, setWorkspace] = useState('');
  const [kind, setKind] = useState<SessionKind>('agent');
  const [mode, setMode] = useState<Mode>('ask');
  const [title, setTitle] = useState('');
  const [busy, setBusy] = useState(false);
  const canPick = useKeel((s) => Boolean(s.model.app?.canPickFolder));
  const pick = async () => {
    const got = await callMain((api) => api.pickFolder());
    if (got.ok && got.value) setWorkspace(got.value);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    const made = await useKeel.getState().sessions.create({ workspace: workspace.trim(), kind, mode, title: title.trim() || undefined });
    setBusy(false);
    if (made) onDone();
  };

  return (
    <form className="new-session" onSubmit={(e) => void submit(e)} data-testid="new-session-form">
      <label>
        Workspace folder
        <span className="row">
          <input
            value={workspace}
            onChange={(e) => setWorkspace(e.target.value)}
            placeholder="/home/you/code/project"
            required={kind === 'agent'}
            autoFocus
            data-testid="new-session-workspace"
            className="mono grow"
          />
          {canPick && (
            <button type="button" onClick={() => void pick()} data-testid="new-session-pick">
              Choose…
            </button>
          )}
        </span>
      </label>
      <div className="row">
        <label>
          Kind
          <select value={kind} onChange={(e) => setKind(e.target.value as SessionKind)} data-testid="new-session-kind">
            <option value="agent">Agent (reads, edits, runs)</option>
            <option value="chat">Chat</option>
          </select>
        </label>
        <label>
          Mode
          <select value={mode} onChange={(e) => setMode(e.target.value as Mode)} data-testid="new-session-mode">
            {MODES.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
      </div>
      <label>
        Title (optional)
        <input value={title} onChange={(e) => setTitle(e.target.value)} data-testid="new-session-title" />
      </label>
      <div className="row">
        <button type="submit" className="primary" disabled={busy || (kind === 'agent' && !workspace.trim())} data-testid="new-session-submit">
          Start session
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
