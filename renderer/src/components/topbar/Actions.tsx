import { useTranscript } from '../../stores/useTranscript.js';
import { useUi } from '../../stores/useUi.js';
import { MOD } from '../../shortcuts.js';

/** Compact now / Undo / Regenerate / Stop, and the inspector toggle. */
export function Actions() {
  const hasSession = useTranscript((s) => s.view !== undefined);
  const running = useTranscript((s) => s.running);
  const hasTurns = useTranscript((s) => (s.view?.turns.length ?? 0) > 0);
  const t = useTranscript.getState;
  const idle = hasSession && !running;
  return (
    <div className="actions">
      <button type="button" disabled={!idle || !hasTurns} onClick={() => void t().compact()} title="Replace the history with a summary now (one deliberate cache break)" data-testid="compact-button">
        Compact now
      </button>
      <button type="button" disabled={!idle || !hasTurns} onClick={() => void t().undo()} title="Take back the last turn" data-testid="undo-button">
        Undo
      </button>
      <button type="button" disabled={!idle || !hasTurns} onClick={() => void t().regenerate()} title="Ask for the last reply again" data-testid="regenerate-button">
        Regenerate
      </button>
      <button type="button" className={running ? 'danger' : ''} disabled={!running} onClick={() => void t().stop()} title="Stop the model (Escape)" data-testid="stop-button">
        Stop
      </button>
      <button type="button" onClick={() => useUi.getState().openInspector(true)} title={`Open the Recall inspector (${MOD}+I)`} data-testid="inspector-button">
        Recall
      </button>
    </div>
  );
}
