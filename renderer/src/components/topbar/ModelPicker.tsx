import { useEffect, useState, type FormEvent } from 'react';
import type { AppState } from '../../../../main/contract.js';
import { basename, bytes } from '../../lib/format.js';
import { callMain, useKeel } from '../../stores/store.js';
import { PriceLine } from '../price/PriceLine.js';
import { PriceQuestion } from '../price/PriceQuestion.js';
import { usePricedAction } from '../price/usePricedAction.js';

/**
 * Choose a GGUF: one from the models folder or a path typed in. With a session open it moves that
 * session to the model (switchModel: the next request re-reads everything, a labelled cache break,
 * whose price the picker shows before it is paid and asks about above the person's limit);
 * otherwise it becomes the app's model.
 */
export function ModelPicker({ onClose, inline = false }: { onClose?(): void; inline?: boolean }) {
  const app = useKeel((s) => s.model.app);
  const models = useKeel((s) => s.model.models);
  const sessionId = useKeel((s) => s.transcript.sessionId);
  const sessionModel = useKeel((s) => s.transcript.view?.summary.model);
  const running = useKeel((s) => s.transcript.running);
  const [path, setPath] = useState('');
  const [folder, setFolder] = useState(app?.modelsFolder ?? '');
  const switching = sessionId !== undefined && !inline;
  const priced = usePricedAction(switching ? { kind: 'switch model' } : undefined, true);

  useEffect(() => {
    void useKeel.getState().model.refreshModels();
  }, []);
  useEffect(() => {
    if (app?.modelsFolder) setFolder(app.modelsFolder);
  }, [app?.modelsFolder]);

  const choose = async (file: string) => {
    const m = useKeel.getState().model;
    const ok = switching ? await m.switchTo(sessionId, file) : await m.load(file);
    if (ok) {
      if (sessionId !== undefined) await useKeel.getState().transcript.reload();
      onClose?.();
    }
  };
  /** A switch pays its price: above the person's limit it waits for their answer. */
  const pay = (go: () => void) => (switching ? void priced.attempt(go) : go());
  const submitPath = (e: FormEvent) => {
    e.preventDefault();
    if (path.trim()) pay(() => void choose(path.trim()));
  };
  const submitFolder = (e: FormEvent) => {
    e.preventDefault();
    if (folder.trim()) void useKeel.getState().model.setFolder(folder.trim());
  };
  const verb = switching ? 'Switch' : 'Load';

  return (
    <div className={inline ? 'model-picker inline' : 'model-picker popover'} data-testid="model-picker" role="dialog" aria-label="Choose a model">
      {!inline && (
        <header>
          <strong>Model</strong>
          <button type="button" className="ghost" onClick={onClose} aria-label="Close">
            ×
          </button>
        </header>
      )}
      {switching && (
        <div className="switch-price">
          {priced.got?.ok !== true && <span className="muted small">Switching re-reads the whole session once (a labelled cache break).</span>}
          <PriceLine priced={priced} subject="Switching" />
          {priced.question && <PriceQuestion question={priced.question} />}
        </div>
      )}
      <Progress />
      <h4 className="small">This computer (GGUF file)</h4>
      <form onSubmit={submitFolder} className="row">
        <label className="grow">
          Models folder
          <input className="mono" value={folder} onChange={(e) => setFolder(e.target.value)} data-testid="models-folder-input" />
        </label>
        <button type="submit" data-testid="models-folder-submit">
          Use folder
        </button>
      </form>
      <ul className="model-list" data-testid="model-list">
        {models.map((m) => (
          <li key={m.path}>
            <button type="button" disabled={running} onClick={() => pay(() => void choose(m.path))} data-testid="model-option" title={m.path}>
              <span className="mono">{m.name}</span>
              <span className="muted">{bytes(m.sizeBytes)}</span>
              {isLoaded(app, m.path) && <span className="tag ok">loaded</span>}
              {!inline && sessionModel === m.path && <span className="tag">this session</span>}
            </button>
          </li>
        ))}
        {models.length === 0 && <li className="muted small">No .gguf files in {app ? app.modelsFolder : 'the models folder'}.</li>}
      </ul>
      <form onSubmit={submitPath} className="row">
        <label className="grow">
          Or a GGUF file’s path
          <input className="mono" value={path} onChange={(e) => setPath(e.target.value)} placeholder="/path/to/model.gguf" data-testid="model-path-input" />
        </label>
        <button type="submit" className="primary" disabled={!path.trim() || running} data-testid="model-path-submit">
          {verb}
        </button>
      </form>
      <ServerPicker sessionId={inline ? undefined : sessionId} disabled={running} onChosen={onClose} pay={pay} />
    </div>
  );
}

/**
 * Whether main holds this model loaded now: its setups list each model whose load finished (and
 * not one that was chosen once, or failed), whichever session or choice loaded it.
 */
export function isLoaded(app: AppState | undefined, file: string | undefined): boolean {
  return file !== undefined && file !== '' && app?.loadedSetups?.[file] !== undefined;
}

/**
 * "Server (URL)": a model server's address, an optional key (kept by main: the OS keychain in the
 * app, memory in browser mode; never shown again), then the server's models to choose from.
 */
function ServerPicker({ sessionId, disabled, onChosen, pay }: { sessionId?: number; disabled: boolean; onChosen?(): void; pay(go: () => void): void }) {
  const [url, setUrl] = useState('http://127.0.0.1:8080');
  const [key, setKey] = useState('');
  const [models, setModels] = useState<string[] | undefined>();
  const [busy, setBusy] = useState(false);
  const list = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    const got = await callMain((api) => api.serverModels(url.trim(), key === '' ? undefined : key), { about: 'model' });
    if (got.ok) {
      setModels(got.value);
      setKey('');
    }
    setBusy(false);
  };
  const choose = async (model: string) => {
    setBusy(true);
    const got = await callMain((api) => api.useServerModel(url.trim(), model, sessionId), { about: 'model' });
    if (got.ok) {
      await useKeel.getState().model.refreshState();
      if (sessionId !== undefined) await useKeel.getState().transcript.reload();
      onChosen?.();
    }
    setBusy(false);
  };
  return (
    <section className="server-picker" data-testid="server-picker">
      <h4 className="small">Server (URL)</h4>
      <form onSubmit={list} className="row">
        <label className="grow">
          URL
          <input className="mono" value={url} onChange={(e) => setUrl(e.target.value)} data-testid="server-url-input" />
        </label>
        <label>
          Key (optional)
          <input type="password" autoComplete="off" value={key} onChange={(e) => setKey(e.target.value)} data-testid="server-key-input" />
        </label>
        <button type="submit" disabled={busy || !url.trim()} data-testid="server-list-submit">
          List models
        </button>
      </form>
      {models && (
        <ul className="model-list" data-testid="server-model-list">
          {models.map((m) => (
            <li key={m}>
              <button type="button" disabled={disabled || busy} onClick={() => pay(() => void choose(m))} data-testid="server-model-option">
                <span className="mono">{m}</span>
              </button>
            </li>
          ))}
          {models.length === 0 && <li className="muted small">The server lists no models.</li>}
        </ul>
      )}
    </section>
  );
}

export function Progress() {
  const progress = useKeel((s) => s.model.progress);
  if (!progress) return null;
  const pct = Math.round(progress.fraction * 100);
  // Before the first figure arrives the bar moves on its own (indeterminate), not an empty 0 %.
  return (
    <div className="progress" data-testid="model-progress">
      <span className="small">
        Loading {basename(progress.path)} · {pct > 0 ? `${pct}%` : 'starting…'}
      </span>
      {pct > 0 ? <progress max={100} value={pct} aria-label="Model loading" /> : <progress aria-label="Model loading" />}
    </div>
  );
}
