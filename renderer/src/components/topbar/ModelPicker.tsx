import { useEffect, useState, type FormEvent } from 'react';
import { basename, bytes } from '../../lib/format.js';
import { useModel } from '../../stores/useModel.js';
import { useTranscript } from '../../stores/useTranscript.js';

/**
 * Choose a GGUF: one from the models folder or a path typed in. With a session open it moves that
 * session to the model (switchModel: the next request re-reads everything, a labelled cache break);
 * otherwise it becomes the app's model.
 */
export function ModelPicker({ onClose, inline = false }: { onClose?(): void; inline?: boolean }) {
  const app = useModel((s) => s.app);
  const models = useModel((s) => s.models);
  const sessionId = useTranscript((s) => s.sessionId);
  const running = useTranscript((s) => s.running);
  const [path, setPath] = useState('');
  const [folder, setFolder] = useState(app?.modelsFolder ?? '');

  useEffect(() => {
    void useModel.getState().refreshModels();
  }, []);
  useEffect(() => {
    if (app?.modelsFolder) setFolder(app.modelsFolder);
  }, [app?.modelsFolder]);

  const choose = async (file: string) => {
    const m = useModel.getState();
    const ok = sessionId !== undefined && !inline ? await m.switchTo(sessionId, file) : await m.load(file);
    if (ok) {
      if (sessionId !== undefined) await useTranscript.getState().reload();
      onClose?.();
    }
  };
  const submitPath = (e: FormEvent) => {
    e.preventDefault();
    if (path.trim()) void choose(path.trim());
  };
  const submitFolder = (e: FormEvent) => {
    e.preventDefault();
    if (folder.trim()) void useModel.getState().setFolder(folder.trim());
  };
  const verb = sessionId !== undefined && !inline ? 'Switch' : 'Load';

  return (
    <div className={inline ? 'model-picker inline' : 'model-picker popover'} data-testid="model-picker" role="dialog" aria-label="Choose a model">
      {!inline && (
        <header>
          <strong>Model</strong>
          {sessionId !== undefined && <span className="muted small">Switching re-reads the whole session once (a labelled cache break).</span>}
          <button type="button" className="ghost" onClick={onClose} aria-label="Close">
            ×
          </button>
        </header>
      )}
      <Progress />
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
            <button type="button" disabled={running} onClick={() => void choose(m.path)} data-testid="model-option" title={m.path}>
              <span className="mono">{m.name}</span>
              <span className="muted">{bytes(m.sizeBytes)}</span>
              {app?.loadedModel === m.path && <span className="tag ok">loaded</span>}
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
    </div>
  );
}

export function Progress() {
  const progress = useModel((s) => s.progress);
  if (!progress) return null;
  const pct = Math.round(progress.fraction * 100);
  return (
    <div className="progress" data-testid="model-progress">
      <span className="small">
        Loading {basename(progress.path)} · {pct}%
      </span>
      <progress max={100} value={pct} aria-label="Model loading" />
    </div>
  );
}
