import { basename } from '../../lib/format.js';
import { useModel } from '../../stores/useModel.js';
import { useTranscript } from '../../stores/useTranscript.js';
import { useUi } from '../../stores/useUi.js';
import { isLoaded, ModelPicker } from './ModelPicker.js';

/** The model in use (the session's, else the app's) and its state; click to choose another. */
export function ModelChip() {
  const app = useModel((s) => s.app);
  const progress = useModel((s) => s.progress);
  const sessionModel = useTranscript((s) => s.view?.summary.model);
  const open = useUi((s) => s.pickerOpen);
  const model = sessionModel || app?.loadedModel || app?.lastModel;
  // A server's model (`URL#name`, main/remote/connect.ts) is never loaded here: the server holds it.
  const onServer = !progress && /^https?:\/\//.test(model ?? '');
  const loaded = isLoaded(app, model);
  const state = progress ? `loading ${Math.round(progress.fraction * 100)}%` : onServer ? 'on server' : loaded ? 'loaded' : 'not loaded';
  return (
    <div className="model-chip-wrap">
      <button type="button" className="model-chip" onClick={() => useUi.getState().setPicker(!open)} title={model ?? 'Choose a model'} data-testid="model-chip" aria-expanded={open}>
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
      {open && <ModelPicker onClose={() => useUi.getState().setPicker(false)} />}
    </div>
  );
}
