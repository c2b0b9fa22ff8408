import { MOD } from '../../shortcuts.js';
import { useKeel } from '../../stores/store.js';
import { SettingsPanel } from './SettingsPanel.js';
import './settings.css';

/** The title bar's Settings button and the panel it opens (also Ctrl/Cmd+,). */
export function SettingsButton() {
  const open = useKeel((s) => s.ui.settingsOpen);
  return (
    <div className="settings-wrap">
      <button type="button" className="ghost" onClick={() => useKeel.getState().ui.setSettings(!open)} title={`Settings (${MOD}+,)`} aria-expanded={open} data-testid="settings-button">
        Settings
      </button>
      {open && <SettingsPanel onClose={() => useKeel.getState().ui.setSettings(false)} />}
    </div>
  );
}

/** Ctrl/Cmd+,: opens and closes the panel. */
export function toggleSettings(): void {
  const { ui } = useKeel.getState();
  ui.setSettings(!ui.settingsOpen);
}
