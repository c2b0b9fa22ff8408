import { MOD } from '../../shortcuts.js';
import { useUi } from '../../stores/useUi.js';
import { SettingsPanel } from './SettingsPanel.js';

/** The title bar's Settings button and the panel it opens (also Ctrl/Cmd+,). */
export function SettingsButton() {
  const open = useUi((s) => s.settingsOpen);
  return (
    <div className="settings-wrap">
      <button type="button" className="ghost" onClick={() => useUi.getState().setSettings(!open)} title={`Settings (${MOD}+,)`} aria-expanded={open} data-testid="settings-button">
        Settings
      </button>
      {open && <SettingsPanel onClose={() => useUi.getState().setSettings(false)} />}
    </div>
  );
}
