import { useEffect } from 'react';
import { visibleText, type HookEntryView, type HookFileView } from '../../../../main/contract.js';
import { useKeel } from '../../stores/store.js';

/** A file's state in words: whether its hooks run, and why not. */
function stateOf(file: HookFileView): { text: string; tag: string } {
  if (file.problem !== undefined) return { text: 'not loaded', tag: 'amber' };
  if (file.needsApproval) return { text: 'not approved', tag: 'amber' };
  return { text: file.source === 'person' ? 'yours' : 'approved', tag: 'ok' };
}

/** One hook as written: its event, matcher and command, every hidden character named. */
function Hook({ hook }: { hook: HookEntryView }) {
  return (
    <li data-testid="hook-entry">
      <strong>{hook.event}</strong>
      {hook.matcher !== undefined && ` [${visibleText(hook.matcher || '*')}]`}: {visibleText(hook.command)}
      {hook.timeoutS !== undefined && <span className="muted"> (timeout {hook.timeoutS} s)</span>}
    </li>
  );
}

function HookFile({ file }: { file: HookFileView }) {
  const approving = useKeel((s) => s.hooks.approving);
  const state = stateOf(file);
  return (
    <section className="panel hook-file" data-testid="hook-file" data-source={file.source}>
      <header className="row">
        <strong className="mono">{file.file}</strong>
        <span className={`tag ${state.tag}`} data-testid="hook-state">{state.text}</span>
        <span className="muted small">{file.source === 'person' ? 'your file' : 'workspace file'}</span>
      </header>
      {file.needsApproval && (
        <p className="muted small">
          A workspace&apos;s own hooks run nothing until you approve the file as it is now (sha {file.hash.slice(0, 8)}); any later change asks again.
        </p>
      )}
      {file.problem !== undefined && (
        <div className="banner banner-error" role="alert" data-testid="hook-problem">
          {file.problem}
        </div>
      )}
      {file.hooks.length > 0 && (
        <ul className="hook-list mono small">
          {file.hooks.map((hook, i) => (
            <Hook key={i} hook={hook} />
          ))}
        </ul>
      )}
      {file.needsApproval && (
        <button type="button" className="ok" disabled={approving} onClick={() => void useKeel.getState().hooks.approve(file.hash)} data-testid="hooks-approve">
          Approve its hooks
        </button>
      )}
    </section>
  );
}

/** The Servers tab's hooks: each settings file with hooks, where it is, whether they run, and the approval a workspace's needs. */
export function HooksPanel() {
  const view = useKeel((s) => s.hooks.view);
  // Opening the tab reads the files again: one edited since shows as it is now (and asks again).
  useEffect(() => {
    void useKeel.getState().hooks.refresh();
  }, []);
  if (!view) return null;
  return (
    <div className="hooks-panel" data-testid="hooks-panel">
      <h3>Hooks</h3>
      {view.files.map((f) => (
        <HookFile key={f.file} file={f} />
      ))}
      {view.files.length === 0 && (
        <p className="muted small" data-testid="hooks-none">
          No hooks. Add them to {view.places.join(' or ')} as
          {' {"hooks": {"PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": …}]}]}}'}.
        </p>
      )}
    </div>
  );
}
