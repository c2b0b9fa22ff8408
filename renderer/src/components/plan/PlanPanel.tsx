import { useState } from 'react';
import type { SessionView } from '../../../../main/contract.js';
import { useKeel } from '../../stores/store.js';

type Item = SessionView['plan'][number];

const STATUS_LABEL = { todo: '[ ] to do', doing: '[~] doing', done: '[x] done' } as const satisfies Record<Item['status'], string>;
const STATUSES = Object.keys(STATUS_LABEL) as Item['status'][];

/**
 * The session's plan, as the model sees it: the person edits it here (the steps, their order and
 * status), and on Save main keeps it and tells the model with the next message.
 */
export function PlanPanel() {
  const plan = useKeel((s) => s.transcript.view?.plan);
  const pending = useKeel((s) => s.transcript.view?.planPending ?? false);
  const running = useKeel((s) => s.transcript.running);
  const [draft, setDraft] = useState<Item[]>();
  if (!plan) return null;
  const items = draft ?? plan;
  const change = (next: Item[]) => setDraft(next);
  const at = (i: number, fields: Partial<Item>) => change(items.map((item, j) => (j === i ? { ...item, ...fields } : item)));
  const move = (i: number, by: number) => {
    const next = [...items];
    [next[i], next[i + by]] = [next[i + by]!, next[i]!];
    change(next);
  };
  const canSave = draft !== undefined && draft.every((item) => item.text.trim() !== '');
  const save = async () => {
    if (!canSave) return;
    await useKeel.getState().transcript.setPlan(draft.map((item) => ({ ...item, text: item.text.trim() })));
    setDraft(undefined);
  };
  return (
    <div className="plan-view" data-testid="plan-view">
      <header className="row">
        <strong>Plan</strong>
        {pending && (
          <span className="tag amber" data-testid="plan-pending">
            the model hears of your change with your next message
          </span>
        )}
        <span className="grow" />
        <span className="muted small">The model writes it with plan_write; what you change here reaches it as a note.</span>
      </header>
      {items.length === 0 && <p className="muted">No plan yet. Add a step, or ask the model to plan.</p>}
      <ol className="plan-items">
        {items.map((item, i) => (
          <li key={i} className={`plan-item plan-${item.status}`} data-testid={`plan-item-${i + 1}`}>
            <span className="plan-number muted">{i + 1}.</span>
            <select value={item.status} onChange={(e) => at(i, { status: e.target.value as Item['status'] })} aria-label={`Step ${i + 1} status`} data-testid={`plan-status-${i + 1}`}>
              {STATUSES.map((status) => (
                <option key={status} value={status}>
                  {STATUS_LABEL[status]}
                </option>
              ))}
            </select>
            <input className="grow" value={item.text} onChange={(e) => at(i, { text: e.target.value })} aria-label={`Step ${i + 1}`} data-testid={`plan-text-${i + 1}`} />
            <button type="button" className="ghost small" disabled={i === 0} onClick={() => move(i, -1)} title="Move up" aria-label={`Move step ${i + 1} up`}>
              ↑
            </button>
            <button type="button" className="ghost small" disabled={i === items.length - 1} onClick={() => move(i, 1)} title="Move down" aria-label={`Move step ${i + 1} down`}>
              ↓
            </button>
            <button type="button" className="ghost small" onClick={() => change(items.filter((_, j) => j !== i))} title="Remove this step" aria-label={`Remove step ${i + 1}`} data-testid={`plan-remove-${i + 1}`}>
              ×
            </button>
          </li>
        ))}
      </ol>
      <footer className="row">
        <button type="button" className="small" onClick={() => change([...items, { text: '', status: 'todo' }])} data-testid="plan-add">
          Add step
        </button>
        <span className="grow" />
        {draft !== undefined && (
          <button type="button" className="small" onClick={() => setDraft(undefined)} data-testid="plan-discard">
            Discard changes
          </button>
        )}
        <button type="button" className="primary small" disabled={!canSave || running} onClick={() => void save()} title={running ? 'Wait for the reply to end' : 'Keep this plan; the model hears of it with your next message'} data-testid="plan-save">
          Save plan
        </button>
      </footer>
    </div>
  );
}

/** The Plan tab: the open session's plan; a draft is dropped when another session opens. */
export function PlanTab() {
  const sessionId = useKeel((s) => s.transcript.sessionId);
  return <PlanPanel key={sessionId} />;
}

/** Beside the Plan tab's name: how many steps. */
export function PlanBadge() {
  const steps = useKeel((s) => s.transcript.view?.plan.length ?? 0);
  return steps > 0 ? <span className="tag">{steps}</span> : null;
}
