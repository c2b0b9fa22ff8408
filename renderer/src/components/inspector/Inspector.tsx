import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useKeel } from '../../stores/store.js';
import { MOD } from '../../shortcuts.js';
import { RecallMeta } from './RecallMeta.js';
import { StoredBody } from './StoredBody.js';

/** The Recall inspector: any result by id, metadata first, then the stored body, paged. */
export function Inspector() {
  const focus = useKeel((s) => s.ui.inspectorFocus);
  const { tabs, active, view, loading, error } = useKeel((s) => s.inspector);
  const [given, setGiven] = useState('');
  const field = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (focus > 0) {
      field.current?.focus();
      field.current?.select();
    }
  }, [focus]);
  useEffect(() => {
    if (active) setGiven(active);
  }, [active]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (given.trim()) void useKeel.getState().inspector.show(given);
  };

  return (
    <aside className="inspector" data-testid="inspector-panel" aria-label="Recall inspector">
      <header className="inspector-head">
        <strong>Recall inspector</strong>
        <form onSubmit={submit} className="id-form">
          <input
            ref={field}
            value={given}
            onChange={(e) => setGiven(e.target.value)}
            placeholder="#0012"
            aria-label="Result id"
            title={`A result id, then Enter (${MOD}+I comes here)`}
            className="mono"
            data-testid="inspector-id-input"
          />
          <button type="submit" data-testid="inspector-open">
            Open
          </button>
        </form>
        <button type="button" className="ghost" onClick={() => useKeel.getState().ui.closeInspector()} aria-label="Close the inspector" data-testid="inspector-close">
          ×
        </button>
      </header>
      {tabs.length > 0 && (
        <nav className="inspector-tabs">
          {tabs.map((id) => (
            <span key={id} className={`itab${id === active ? ' on' : ''}`}>
              <button type="button" className="ghost mono" onClick={() => void useKeel.getState().inspector.show(id)}>
                {id}
              </button>
              <button type="button" className="ghost small" aria-label={`Close ${id}`} onClick={() => useKeel.getState().inspector.closeTab(id)}>
                ×
              </button>
            </span>
          ))}
        </nav>
      )}
      <div className="inspector-body">
        {error && (
          <div className="banner banner-error" role="alert" data-testid="inspector-error">
            {error}
          </div>
        )}
        {loading && !view && <p className="muted">Loading {active}…</p>}
        {!view && !error && !loading && <p className="muted small">Type an id such as #0012, or click any #id in the transcript.</p>}
        {view && (
          <>
            <RecallMeta view={view} />
            <StoredBody view={view} />
          </>
        )}
      </div>
    </aside>
  );
}

/** Ctrl/Cmd+I: the inspector, its id field focused. Like the Recall button: results belong to a session, so without one nothing. */
export function openInspectorByKey(): void {
  const { transcript, ui } = useKeel.getState();
  if (transcript.sessionId !== undefined) ui.openInspector(true);
}
