import { useState, type ReactNode } from 'react';
import type { RewindPlanView } from '../../../../main/contract.js';
import { useChanges } from '../../stores/useChanges.js';
import { useTranscript } from '../../stores/useTranscript.js';
import { useUi } from '../../stores/useUi.js';
import { MOD } from '../../shortcuts.js';
import { Icon, type IconName } from '../common/Icon.js';
import { touchesFiles } from '../transcript/RewindFiles.js';
import { UndoConfirm } from './UndoConfirm.js';

interface ActionProps {
  icon: IconName;
  label: string;
  title: string;
  disabled: boolean;
  onClick(): void;
  testId: string;
  className?: string;
}

/**
 * One action button: an icon and its label. Where the top bar is narrow (the inspector is open)
 * the label is hidden from view, not from assistive technology, and the tooltip still names it.
 */
function Action({ icon, label, title, disabled, onClick, testId, className = '' }: ActionProps): ReactNode {
  return (
    <button type="button" className={`action ${className}`} disabled={disabled} onClick={onClick} title={title} data-testid={testId}>
      <Icon name={icon} />
      <span className="action-label">{label}</span>
    </button>
  );
}

/**
 * Compact now / Undo / Regenerate / Stop, and the inspector toggle. Without a session open there
 * is nothing to act on: the session's actions are not shown and Recall is disabled.
 */
export function Actions() {
  const hasSession = useTranscript((s) => s.sessionId !== undefined);
  const loaded = useTranscript((s) => s.view !== undefined);
  const running = useTranscript((s) => s.running);
  const hasTurns = useTranscript((s) => (s.view?.turns.length ?? 0) > 0);
  const t = useTranscript.getState;
  const idle = loaded && !running;
  const [undoPlan, setUndoPlan] = useState<RewindPlanView>();
  /** Undo asks first only where its turn changed files (or they were not recorded); otherwise it acts at once. */
  const undo = async () => {
    const id = t().sessionId;
    if (id === undefined) return;
    const plan = await useChanges.getState().plan(id);
    if (!plan) return;
    if (plan.canRewindFiles && !touchesFiles(plan)) void t().undo();
    else setUndoPlan(plan);
  };
  const recall = (
    <Action
      icon="recall"
      label="Recall"
      title={hasSession ? `Open the Recall inspector (${MOD}+I)` : 'The Recall inspector shows a session’s results: open or start a session first'}
      disabled={!hasSession}
      onClick={() => useUi.getState().openInspector(true)}
      testId="inspector-button"
    />
  );
  if (!hasSession) return <div className="actions">{recall}</div>;
  return (
    <div className="actions">
      <Action icon="compact" label="Compact now" title="Compact now: replace the history with a summary (one deliberate cache break)" disabled={!idle || !hasTurns} onClick={() => void t().compact()} testId="compact-button" />
      <span className="undo-anchor">
        <Action icon="undo" label="Undo" title="Undo: take back the last turn" disabled={!idle || !hasTurns} onClick={() => void undo()} testId="undo-button" />
        {undoPlan && idle && <UndoConfirm plan={undoPlan} close={() => setUndoPlan(undefined)} />}
      </span>
      <Action icon="regenerate" label="Regenerate" title="Regenerate: ask for the last reply again" disabled={!idle || !hasTurns} onClick={() => void t().regenerate()} testId="regenerate-button" />
      <Action icon="stop" label="Stop" title="Stop the model (Escape)" disabled={!running} onClick={() => void t().stop()} testId="stop-button" className={running ? 'danger' : ''} />
      {recall}
    </div>
  );
}
