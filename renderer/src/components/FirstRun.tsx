import { useKeel } from '../stores/store.js';
import { ModelPicker } from './topbar/ModelPicker.js';

/** No model loaded and none remembered: choose a GGUF, or download the recommended one. */
export function FirstRun() {
  const download = useKeel((s) => s.model.download);
  const busy = useKeel((s) => s.model.progress !== undefined);
  return (
    <div className="first-run-pane" data-testid="first-run">
      <div className="first-run">
      <h2>Choose a model to start</h2>
      <p className="muted">
        Keel runs a GGUF model on this computer; nothing leaves it. Pick one from your models folder, or type the path of a <code>.gguf</code> file.
      </p>
      <ModelPicker inline />
      <div className="download">
        <button type="button" disabled={busy} onClick={() => void download()} data-testid="download-model-button" aria-describedby="download-why">
          Download a recommended model
        </button>
        <p id="download-why" className="muted small">
          Qwen3.5 4B (Q4_K_M, about 2.7 GB; reasoning and tool calls) into the models folder. Downloading needs a network connection; an interrupted download resumes where it stopped.
        </p>
      </div>
      </div>
    </div>
  );
}
