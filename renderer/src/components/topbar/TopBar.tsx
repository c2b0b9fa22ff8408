import { useKeel } from '../../stores/store.js';
import { panels } from '../panels.js';
import { Actions } from './Actions.js';
import { ModeSelector } from './ModeSelector.js';

const tabs = panels.filter((p) => p.place === 'tab');

/**
 * The tab panels' tabs (components/panels.ts), the mode and the session's actions. The model chip sits in the title
 * bar. Narrow (the inspector open), the actions show as icons with tooltips; narrower still, the
 * controls move to a second row rather than out of view.
 */
export function TopBar() {
  const tab = useKeel((s) => s.ui.tab);
  return (
    <div className="topbar">
      <nav className="tabs" role="tablist">
        {tabs.map((p) => (
          <button key={p.id} type="button" role="tab" aria-selected={tab === p.id} className={tab === p.id ? 'on' : ''} onClick={() => useKeel.getState().ui.setTab(p.id)} data-testid={`${p.id}-tab`}>
            {p.label}
            {p.Badge && (
              <>
                {' '}
                <p.Badge />
              </>
            )}
          </button>
        ))}
      </nav>
      <div className="topbar-controls">
        <ModeSelector />
        <Actions />
      </div>
    </div>
  );
}
