import { useEffect, useState } from 'react';
import type { PutBackFile, RewindPlanView } from '../../../../main/contract.js';
import { useKeel } from '../../stores/store.js';

/** Whether a rewind with files would touch anything at all (put back, or name a file it leaves). */
export function touchesFiles(plan: RewindPlanView): boolean {
  return plan.putBack.length + plan.left.length + plan.large.length > 0;
}

/**
 * What a rewind to turn `seq` (undefined: the turn Undo takes back) with files would do, asked of
 * main while `active`; and the person's choice, "conversation and files" by default where files
 * would go back.
 */
export function useRewindPlan(sessionId: number | undefined, seq: number | undefined, active: boolean) {
  const [plan, setPlan] = useState<RewindPlanView>();
  const [files, setFiles] = useState(false);
  useEffect(() => {
    setPlan(undefined);
    setFiles(false);
    if (!active || sessionId === undefined) return;
    let live = true;
    void useKeel.getState().changes.plan(sessionId, seq).then((got) => {
      if (!live) return;
      // Main's reason is in the error banner; the rewind can still take back the conversation.
      setPlan(got ?? { seq: seq ?? 0, canRewindFiles: false, unavailable: 'Keel could not tell which files would go back (see the message above).', putBack: [], left: [], large: [] });
      setFiles(got !== undefined && got.canRewindFiles && got.putBack.length > 0);
    });
    return () => {
      live = false;
    };
  }, [sessionId, seq, active]);
  return { plan, files: files && plan?.canRewindFiles === true, setFiles };
}

const HOW: Record<PutBackFile['how'], string> = {
  restored: 'its content as before',
  removed: 'removed: created in these turns',
  recreated: 'back: deleted in these turns',
};

/**
 * The files part of a rewind's confirmation: "conversation and files" or "conversation only", and
 * the files that would go back (and those a rewind leaves as they are), listed before anything happens.
 */
export function RewindFiles({ plan, files, setFiles, number }: { plan: RewindPlanView | undefined; files: boolean; setFiles(files: boolean): void; number?: number }) {
  if (!plan) return <p className="muted small" data-testid="rewind-files-loading">Looking at what these turns changed in the files…</p>;
  if (!plan.canRewindFiles) {
    return (
      <p className="small" data-testid="rewind-files-unavailable">
        <strong>Conversation only.</strong> {plan.unavailable}
      </p>
    );
  }
  if (!touchesFiles(plan)) return <p className="muted small" data-testid="rewind-files-none">These turns changed no file: files stay as they are.</p>;
  const name = `rewind-files-${plan.seq}`;
  const n = number ?? plan.seq;
  return (
    <div className="rewind-files" data-testid="rewind-files">
      <div className="rewind-files-choice" role="radiogroup" aria-label="What goes back">
        <label className="small">
          <input type="radio" name={name} checked={files} disabled={plan.putBack.length === 0} onChange={() => setFiles(true)} data-testid="rewind-with-files" /> Conversation and files
        </label>
        <label className="small">
          <input type="radio" name={name} checked={!files} onChange={() => setFiles(false)} data-testid="rewind-conversation-only" /> Conversation only
        </label>
      </div>
      {plan.putBack.length > 0 && (
        <div className={files ? '' : 'muted'}>
          <p className="small">{files ? `Put back as they were before turn ${n}:` : `With files, these would go back as before turn ${n}:`}</p>
          <ul className="mono small">
            {plan.putBack.map((f) => (
              <li key={f.path} data-testid="rewind-file" data-path={f.path}>
                {f.path} <span className="muted">({HOW[f.how]})</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {plan.left.length > 0 && (
        <div>
          <p className="small">Left as they are (changed from outside after the session&apos;s last change to them):</p>
          <ul className="mono small">
            {plan.left.map((p) => (
              <li key={p} data-testid="rewind-left">{p}</li>
            ))}
          </ul>
        </div>
      )}
      {plan.large.length > 0 && (
        <p className="small" data-testid="rewind-large">
          Left as they are (over the size limit, never copied): <span className="mono">{plan.large.join(', ')}</span>
        </p>
      )}
    </div>
  );
}
