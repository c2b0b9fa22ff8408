import { useEffect } from 'react';
import { visibleText, type HookEntryView, type HookFileView, type RuleEntryView } from '../../../../main/contract.js';
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

/** One permission rule as written, and the Keel rules it became, or why it is ignored. */
function PermissionRule({ rule }: { rule: RuleEntryView }) {
  return (
    <li data-testid="rule-entry" data-ignored={rule.ignored !== undefined || undefined}>
      <strong>{rule.action}</strong> {visibleText(rule.written)}
      {rule.ignored === undefined
        ? <span className="muted"> → {rule.keel.map(visibleText).join(', ')}</span>
        : <span className="muted"> ignored: {rule.ignored}</span>}
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
          A workspace&apos;s own hooks run nothing, and its rules apply to nothing, until you approve this file as it is now (sha {file.hash.slice(0, 8)});
          its hooks then run in the command sandbox, writing only inside the workspace. Any later change asks again.
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
      {file.rules.length > 0 && (
        <ul className="hook-list mono small" data-testid="rule-list">
          {file.rules.map((rule, i) => (
            <PermissionRule key={i} rule={rule} />
          ))}
        </ul>
      )}
      {file.needsApproval && (
        <button type="button" className="ok" disabled={approving} onClick={() => void useKeel.getState().hooks.approve(file.file, file.hash)} data-testid="hooks-approve">
          Approve this file
        </button>
      )}
    </section>
  );
}

/** The Servers tab's hooks and rules: each settings file with either, where it is, whether it is used, and the approval a workspace's needs. */
export function HooksPanel() {
  const view = useKeel((s) => s.hooks.view);
  // Opening the tab reads the files again: one edited since shows as it is now (and asks again).
  useEffect(() => {
    void useKeel.getState().hooks.refresh();
  }, []);
  if (!view) return null;
  return (
    <div className="hooks-panel" data-testid="hooks-panel">
      <h3>Hooks and permission rules</h3>
      {view.files.map((f) => (
        <HookFile key={f.file} file={f} />
      ))}
      {view.files.length === 0 && (
        <p className="muted small" data-testid="hooks-none">
          No hooks or permission rules. Add them to {view.places.join(' or ')} as
          {' {"hooks": {"PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": …}]}]}}'}.
        </p>
      )}
    </div>
  );
}
