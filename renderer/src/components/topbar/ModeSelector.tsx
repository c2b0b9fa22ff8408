import { MODE_HELP as HELP, MODES } from '../../../../main/contract.js';
import { useKeel } from '../../stores/store.js';

/**
 * The permission mode; a change goes to main (it becomes a note on the next message). A mode
 * belongs to a session, so without one open there is no selector.
 */
export function ModeSelector() {
  const hasSession = useKeel((s) => s.transcript.sessionId !== undefined);
  const mode = useKeel((s) => s.transcript.view?.summary.mode);
  const running = useKeel((s) => s.transcript.running);
  const setMode = useKeel((s) => s.transcript.setMode);
  if (!hasSession) return null;
  return (
    <div className="segmented" role="radiogroup" aria-label="Mode" data-testid="mode-selector">
      <span className="label" aria-hidden="true">
        Mode
      </span>
      {MODES.map((m) => (
        <button
          key={m}
          type="button"
          role="radio"
          aria-checked={mode === m}
          className={mode === m ? 'on' : ''}
          disabled={!mode || running}
          title={HELP[m]}
          data-testid={`mode-${m}`}
          onClick={() => void setMode(m)}
        >
          {m}
        </button>
      ))}
    </div>
  );
}
