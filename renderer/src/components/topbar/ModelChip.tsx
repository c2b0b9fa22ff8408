import { basename } from '../../lib/format.js';
import { useKeel } from '../../stores/store.js';
import { isLoaded, ModelPicker } from './ModelPicker.js';

/** The model in use (the session's, else the app's) and its state; click to choose another. */
export function ModelChip() {
  const app = useKeel((s) => s.model.app);
  const progress = useKeel((s) => s.model.progress);
  const sessionModel = useKeel((s) => s.transcript.view?.summary.model);
  const open = useKeel((s) => s.ui.pickerOpen);
  const model = sessionModel || app?.loadedModel || app?.lastModel;
  // A server's model (`URL#name`, main/remote/connect.ts) is never loaded here: the server holds it.
  const onServer = !progress && /^https?:\/\//.test(model ?? '');
  const loaded = isLoaded(app, model);
  const state = progress ? `loading ${Math.round(progress.fraction * 100)}%` : onServer ? 'on server' : loaded ? 'loaded' : 'not loaded';
  return (
    <div className="model-chip-wrap">
      <button type="button" className="model-chip" onClick={() => useKeel.getState().ui.setPicker(!open)} title={model ?? 'Choose a model'} data-testid="model-chip" aria-expanded={open}>
        <span className={`dot ${loaded || onServer ? 'dot-connected' : 'dot-connecting'}`} />
        {model || progress ? (
          <>
            <span className="model-name">{basename(model ?? progress?.path ?? '')}</span>
            <span className="muted">{state}</span>
            <span className="chip-action">Switch model</span>
          </>
        ) : (
          <span className="model-name">
            No model — <span className="chip-action">choose one</span>
          </span>
        )}
      </button>
      {open && <ModelPicker onClose={() => useKeel.getState().ui.setPicker(false)} />}
    </div>
  );
}
