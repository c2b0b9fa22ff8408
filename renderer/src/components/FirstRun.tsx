import { ModelPicker } from './topbar/ModelPicker.js';

/** No model loaded and none remembered: choose a GGUF before anything else. */
export function FirstRun() {
  return (
    <div className="first-run" data-testid="first-run">
      <h2>Choose a model to start</h2>
      <p className="muted">
        Keel runs a GGUF model on this computer; nothing leaves it. Pick one from your models folder, or type the path of a <code>.gguf</code> file.
      </p>
      <ModelPicker inline />
      <div className="download">
        <button type="button" disabled data-testid="download-model-button" aria-describedby="download-why">
          Download a recommended model
        </button>
        <p id="download-why" className="muted small">
          Downloading needs a network connection, and this version of Keel cannot download models yet. Download a GGUF file with a browser on a connected machine, put it in the models folder above, and choose it here.
        </p>
      </div>
    </div>
  );
}
