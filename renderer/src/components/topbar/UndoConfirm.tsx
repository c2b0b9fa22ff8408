import { useEffect, useState } from 'react';
import type { RewindPlanView } from '../../../../main/contract.js';
import { whatGoes } from '../../lib/historyText.js';
import { useKeel } from '../../stores/store.js';
import { PricedConfirm } from '../price/PricedConfirm.js';
import type { PricedAction } from '../price/usePricedAction.js';
import { RewindFiles } from '../transcript/RewindFiles.js';

/**
 * Undo's confirmation, where the turn it takes back changed files (or the session does not record
 * them): "conversation and files" or "conversation only", with the files listed first, and what
 * the undo would re-read; above the person's limit, Undo asks once more.
 */
export function UndoConfirm({ plan, priced, close }: { plan: RewindPlanView; priced: PricedAction; close(): void }) {
  const turns = useKeel((s) => s.transcript.view?.turns ?? []);
  const [files, setFiles] = useState(plan.canRewindFiles && plan.putBack.length > 0);
  const withFiles = files && plan.canRewindFiles;
  const { want } = priced;
  useEffect(() => void want(), [want]);
  return (
    <div
      className="undo-confirm popover history-confirm"
      role="dialog"
      aria-label="Undo"
      data-testid="undo-confirm"
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.stopPropagation();
          close();
        }
      }}
    >
      <p data-testid="history-confirm-text">{whatGoes(turns, plan.seq, 'undo', withFiles)}</p>
      <RewindFiles
        plan={plan}
        files={withFiles}
        setFiles={(f) => {
          // A question asked about the other choice is withdrawn.
          priced.question?.cancel();
          setFiles(f);
        }}
      />
      <PricedConfirm
        priced={priced}
        label="Undo"
        autoFocus
        onConfirm={() => void priced.attempt(() => {
          close();
          void useKeel.getState().transcript.undo(withFiles);
        })}
        onCancel={close}
        testId="undo"
      />
    </div>
  );
}
