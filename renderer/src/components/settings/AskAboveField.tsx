import { useEffect, useId, useState, type FormEvent } from 'react';
import { callMain, useKeel } from '../../stores/store.js';

/**
 * "Ask before a cache break that takes longer than [ ] s": settings.json `askAboveSeconds`, as main
 * keeps it. Saved as typed; main refuses what is not a number of 0 or more, and its words stand
 * beside the field until the next save. Empty: never ask.
 */
export function AskAboveField() {
  const saved = useKeel((s) => s.model.app?.askAboveSeconds);
  const [text, setText] = useState(saved === undefined ? '' : String(saved));
  const [error, setError] = useState<string>();
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);
  const errorId = useId();
  useEffect(() => setText(saved === undefined ? '' : String(saved)), [saved]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    const got = await callMain((api) => api.setAskAboveSeconds(text), { quiet: true });
    setBusy(false);
    setError(got.ok ? undefined : got.error);
    setDone(got.ok);
    if (got.ok) await useKeel.getState().model.refreshState();
  };
  return (
    <form className="ask-above" onSubmit={(e) => void submit(e)} data-testid="ask-above-form">
      <label>
        Ask before a cache break that takes longer than{' '}
        <input
          className="mono"
          inputMode="decimal"
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            setDone(false);
          }}
          placeholder="never"
          aria-invalid={error !== undefined}
          aria-describedby={error ? errorId : undefined}
          data-testid="settings-ask-above"
        />{' '}
        s
      </label>
      <button type="submit" className="small" disabled={busy} data-testid="settings-ask-above-save">
        Save
      </button>
      {done && <span className="muted small" data-testid="settings-ask-above-saved">Saved.</span>}
      {error && (
        <span id={errorId} className="field-error small" role="alert" data-testid="settings-ask-above-error">
          {error}
        </span>
      )}
      <p className="muted small">
        Undo, rewind, edit, regenerate, delete, compaction, a model switch and a new session with other tools say what they would re-read; above this they ask first. Empty: never ask.
      </p>
    </form>
  );
}
