import { useEffect, useState, type FormEvent } from 'react';
import type { SettingView } from '../../../../main/contract.js';
import { callMain, useKeel } from '../../stores/store.js';

/**
 * Every setting of settings.json as its one schema describes it (main/app/settings.ts), as `keel
 * settings` lists them: each with what it is and its value as JSON, which the person edits and saves
 * (empty: not set). main checks a value as it checks the file; its words stand beside that setting
 * and nothing is written. A new setting appears here by itself.
 */
export function SettingsFile() {
  const [settings, setSettings] = useState<SettingView[]>();
  const [loadError, setLoadError] = useState<string>();
  useEffect(() => {
    void callMain((api) => api.settings(), { quiet: true }).then((got) => (got.ok ? setSettings(got.value) : setLoadError(got.error)));
  }, []);
  if (loadError) return <p className="field-error small" role="alert" data-testid="settings-file-error">{loadError}</p>;
  if (!settings) return <p className="muted small">Reading settings.json…</p>;
  return (
    <div className="settings-file" data-testid="settings-file">
      {settings.map((s) => (
        <SettingRow key={s.name} setting={s} onSaved={setSettings} />
      ))}
    </div>
  );
}

const shown = (value: unknown) => (value === undefined ? '' : JSON.stringify(value));

function SettingRow({ setting, onSaved }: { setting: SettingView; onSaved(all: SettingView[]): void }) {
  const [text, setText] = useState(shown(setting.value));
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  useEffect(() => setText(shown(setting.value)), [setting.value]);
  const changed = text !== shown(setting.value);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    const typed = text.trim();
    const got = await callMain((api) => (typed === '' ? api.setSetting(setting.name) : api.setSetting(setting.name, typed)), { quiet: true });
    setBusy(false);
    setError(got.ok ? undefined : got.error);
    if (got.ok) {
      onSaved(got.value);
      // The app's own view of what it remembers (the models folder, the price limit) follows.
      await useKeel.getState().model.refreshState();
    }
  };
  return (
    <form className="setting-row" onSubmit={(e) => void submit(e)} data-testid={`setting-${setting.name}`}>
      <label>
        <span className="mono">{setting.name}</span>
        <input className="mono" value={text} onChange={(e) => setText(e.target.value)} placeholder="not set" aria-invalid={error !== undefined} />
      </label>
      <button type="submit" className="small" disabled={busy || !changed}>
        Save
      </button>
      <p className="muted small">{setting.description}</p>
      {error && (
        <p className="field-error small" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
