import { useEffect, useRef } from 'react';
import type { ShellState, ShellSummary } from '../../../../main/contract.js';
import { useKeel } from '../../stores/store.js';
import { runningCount } from './slice.js';
import './processes.css';

const STATE_TAG: Record<ShellState, string> = { running: 'ok', exited: '', stopped: '', failed: 'amber' };

/** How often the shown output of a running shell is read again while the tab is open. */
const READ_EVERY_MS = 1000;

function ProcessRow({ shell, selected }: { shell: ShellSummary; selected: boolean }) {
  const stopping = useKeel((s) => Boolean(s.processes.stopping[shell.id]));
  const { select, stop } = useKeel.getState().processes;
  return (
    <li className={`process-row${selected ? ' on' : ''}`} data-testid="process" data-shell={shell.id} aria-selected={selected} onClick={() => void select(shell.id)}>
      <span className="mono process-id">{shell.id}</span>
      <span className={`tag ${STATE_TAG[shell.state]}`} data-testid="process-state">{shell.state}</span>
      <span className="mono process-command" title={shell.command}>{shell.command}</span>
      <span className="muted small">
        {shell.pid !== undefined && `pid ${shell.pid} · `}started {new Date(shell.startedAt).toLocaleTimeString()}
      </span>
      {shell.state === 'running' && (
        <button type="button" disabled={stopping} onClick={(e) => { e.stopPropagation(); void stop(shell.id); }} data-testid="process-stop" title="SIGTERM to the command and all it started, SIGKILL if it is still there after the grace period">
          Stop
        </button>
      )}
    </li>
  );
}

/** The selected shell's status line and the newest part of its output; read again each second while it runs. */
function ProcessOutput() {
  const output = useKeel((s) => s.processes.output);
  const running = output?.shell.state === 'running';
  const pre = useRef<HTMLPreElement>(null);
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => void useKeel.getState().processes.readOutput(), READ_EVERY_MS);
    return () => clearInterval(timer);
  }, [running, output?.shell.id]);
  useEffect(() => {
    if (pre.current) pre.current.scrollTop = pre.current.scrollHeight;
  }, [output?.text]);
  if (!output) return null;
  return (
    <section className="panel process-output" data-testid="process-output" data-shell={output.shell.id}>
      <header className="row">
        <strong className="mono">{output.shell.id}</strong>
        <span className="mono small" data-testid="process-status">{output.shell.status}</span>
      </header>
      {output.dropped > 0 && <p className="small muted" data-testid="process-dropped">{output.dropped} earlier bytes are not shown.</p>}
      <pre ref={pre} className="mono small" data-testid="process-text">{output.text}</pre>
    </section>
  );
}

/**
 * The Processes tab: the open session's background commands (bash `run_in_background`), each with
 * its state, the selected one's output as main reads it (the model's own reads are not moved), and
 * Stop, which stops it as kill_shell does. The list is main's; it refreshes when one starts or ends.
 */
export function ProcessesView() {
  const sessionId = useKeel((s) => s.transcript.sessionId);
  const mine = useKeel((s) => s.processes.sessionId === sessionId);
  const shells = useKeel((s) => s.processes.shells);
  const selected = useKeel((s) => s.processes.selected);
  const said = useKeel((s) => s.processes.said);
  useEffect(() => {
    if (sessionId !== undefined) void useKeel.getState().processes.load(sessionId);
  }, [sessionId]);
  if (!mine || shells.length === 0) {
    return (
      <div className="processes-view" data-testid="processes-view">
        <p className="muted" data-testid="processes-none">
          No background commands in this session. When the model runs one (bash with run_in_background), it is listed here with what it prints, and you can stop it.
        </p>
      </div>
    );
  }
  return (
    <div className="processes-view" data-testid="processes-view">
      <ul className="processes-list">
        {shells.map((s) => <ProcessRow key={s.id} shell={s} selected={s.id === selected} />)}
      </ul>
      {said && <p className="small muted" data-testid="processes-said">{said}</p>}
      <ProcessOutput />
    </div>
  );
}

/** Beside the tab's name: how many run now. It loads the list for the open session before the tab is opened. */
export function ProcessesBadge() {
  const sessionId = useKeel((s) => s.transcript.sessionId);
  const running = useKeel((s) => (s.processes.sessionId === sessionId ? runningCount(s.processes.shells) : 0));
  useEffect(() => {
    if (sessionId !== undefined) void useKeel.getState().processes.load(sessionId);
  }, [sessionId]);
  return running > 0 ? <span className="tag ok" data-testid="processes-running">{running} running</span> : null;
}
