import { useState } from 'react';
import { useKeel } from '../../stores/store.js';
import { NewSessionForm } from './NewSessionForm.js';
import { SessionList } from './SessionList.js';

export function Sidebar() {
  const [creating, setCreating] = useState(false);
  const app = useKeel((s) => s.model.app);
  const connection = useKeel((s) => s.connection.state);
  return (
    <aside className="sidebar" aria-label="Sessions">
      <div className="brand">
        <span className="logo">⚓</span> Keel
      </div>
      {creating ? (
        <NewSessionForm onDone={() => setCreating(false)} />
      ) : (
        <button type="button" className="primary wide" onClick={() => setCreating(true)} data-testid="new-session-button">
          + New session
        </button>
      )}
      <SessionList />
      <footer className="sidebar-foot small">
        <div>
          <span className="muted">Models</span> <span className="mono" title={app?.modelsFolder}>{app ? app.modelsFolder : '…'}</span>
        </div>
        <div>
          <span className="muted">Store</span> <span className="mono">{app ? app.dataFolder : '…'}</span>
        </div>
        {app?.sandbox && (
          <div data-testid="sidebar-sandbox" title={app.sandbox.text}>
            <span className="muted">Commands</span> {app.sandbox.on ? 'sandboxed' : 'not sandboxed'}
          </div>
        )}
        <div>
          <span className={`dot dot-${connection}`} /> {connection}
        </div>
      </footer>
    </aside>
  );
}
