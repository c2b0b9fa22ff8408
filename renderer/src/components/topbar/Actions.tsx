import { useState, type ReactNode } from 'react';
import type { RewindPlanView } from '../../../../main/contract.js';
import { priceLine } from '../../lib/priceText.js';
import { useKeel } from '../../stores/store.js';
import { MOD } from '../../shortcuts.js';
import { Icon, type IconName } from '../common/Icon.js';
import { PriceQuestion } from '../price/PriceQuestion.js';
import { usePricedAction, type PricedAction } from '../price/usePricedAction.js';
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
  /** A cache-breaking action: its price joins the tooltip once asked (a pointer or focus on it asks). */
  priced?: PricedAction;
}

/**
 * One action button: an icon and its label. Where the top bar is narrow (the inspector is open)
 * the label is hidden from view, not from assistive technology, and the tooltip still names it.
 */
function Action({ icon, label, title, disabled, onClick, testId, className = '', priced }: ActionProps): ReactNode {
  const price = priceLine(priced?.got);
  const want = priced && !disabled ? () => void priced.want() : undefined;
  return (
    <button
      type="button"
      className={`action ${className}`}
      disabled={disabled}
      onClick={onClick}
      onMouseEnter={want}
      onFocus={want}
      title={price ? `${title}. ${price}` : title}
      data-testid={testId}
    >
      <Icon name={icon} />
      <span className="action-label">{label}</span>
    </button>
  );
}

/** A cache-breaking action's button, and the question it puts above the person's limit, beneath it. */
function PricedButton(props: ActionProps & { priced: PricedAction }) {
  return (
    <span className="undo-anchor">
      <Action {...props} />
      {props.priced.question && <PriceQuestion question={props.priced.question} className="popover" />}
    </span>
  );
}

/**
 * Compact now / Undo / Regenerate / Stop, and the inspector toggle. Without a session open there
 * is nothing to act on: the session's actions are not shown and Recall is disabled. Compact, Undo
 * and Regenerate break the cache: each says in its tooltip what it would re-read, and asks first
 * where that takes longer than the person's limit (Settings).
 */
export function Actions() {
  const hasSession = useKeel((s) => s.transcript.sessionId !== undefined);
  const loaded = useKeel((s) => s.transcript.view !== undefined);
  const running = useKeel((s) => s.transcript.running);
  const hasTurns = useKeel((s) => (s.transcript.view?.turns.length ?? 0) > 0);
  const t = () => useKeel.getState().transcript;
  const idle = loaded && !running;
  const [undoPlan, setUndoPlan] = useState<RewindPlanView>();
  // Undo and Regenerate both take back the last turn (main's default for a take-back without one).
  const compact = usePricedAction({ kind: 'compact' });
  const undoPrice = usePricedAction({ kind: 'take back' });
  const regenerate = usePricedAction({ kind: 'take back' });
  /** Undo asks first where its turn changed files (or they were not recorded), and above the limit; otherwise it acts at once. */
  const undo = async () => {
    const id = t().sessionId;
    if (id === undefined) return;
    const plan = await useKeel.getState().changes.plan(id);
    if (!plan) return;
    if (plan.canRewindFiles && !touchesFiles(plan)) await undoPrice.attempt(() => void t().undo());
    else setUndoPlan(plan);
  };
  const recall = (
    <Action
      icon="recall"
      label="Recall"
      title={hasSession ? `Open the Recall inspector (${MOD}+I)` : 'The Recall inspector shows a session’s results: open or start a session first'}
      disabled={!hasSession}
      onClick={() => useKeel.getState().ui.openInspector(true)}
      testId="inspector-button"
    />
  );
  if (!hasSession) return <div className="actions">{recall}</div>;
  return (
    <div className="actions">
      <PricedButton
        icon="compact"
        label="Compact now"
        title="Compact now: replace the history with a summary (one deliberate cache break)"
        disabled={!idle || !hasTurns}
        onClick={() => void compact.attempt(() => void t().compact())}
        testId="compact-button"
        priced={compact}
      />
      <span className="undo-anchor">
        <Action icon="undo" label="Undo" title="Undo: take back the last turn" disabled={!idle || !hasTurns} onClick={() => void undo()} testId="undo-button" priced={undoPrice} />
        {undoPlan && idle && <UndoConfirm plan={undoPlan} priced={undoPrice} close={() => setUndoPlan(undefined)} />}
        {!undoPlan && undoPrice.question && <PriceQuestion question={undoPrice.question} className="popover" />}
      </span>
      <PricedButton
        icon="regenerate"
        label="Regenerate"
        title="Regenerate: ask for the last reply again"
        disabled={!idle || !hasTurns}
        onClick={() => void regenerate.attempt(() => void t().regenerate())}
        testId="regenerate-button"
        priced={regenerate}
      />
      <Action icon="stop" label="Stop" title="Stop the model (Escape)" disabled={!running} onClick={() => void t().stop()} testId="stop-button" className={running ? 'danger' : ''} />
      {recall}
    </div>
  );
}
