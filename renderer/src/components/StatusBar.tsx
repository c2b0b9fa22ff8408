import { n, percent, seconds, setupLine } from '../lib/format.js';
import { useKeel } from '../stores/store.js';

/** One line of state: the link, whether the model is working, what the model runs on, the last request's figures. */
export function StatusBar() {
  const connection = useKeel((s) => s.connection.state);
  const running = useKeel((s) => s.transcript.running);
  const sha = useKeel((s) => s.transcript.view?.systemPromptSha);
  const rows = useKeel((s) => s.requests.rows);
  const last = rows.at(-1);
  const app = useKeel((s) => s.model.app);
  const sessionModel = useKeel((s) => s.transcript.view?.summary.model);
  const setup = app?.loadedSetups?.[sessionModel || app.loadedModel || ''];
  const sandbox = useKeel((s) => s.model.app?.sandbox);
  return (
    <footer className="statusbar small" data-testid="status-bar">
      <span>
        <span className={`dot dot-${connection}`} /> {connection !== 'connected' ? connection : running ? 'Working…' : 'Ready'}
      </span>
      {setup && (
        <span
          data-testid="status-engine"
          title={`${n(setup.gpuLayers)} of ${n(setup.totalLayers)} layers on the GPU${setup.devices.length ? ` (${setup.devices.join(', ')})` : ''}, KV cache ${setup.kvCacheType}, ${n(setup.threads)} threads; each of ${setup.sequences} sessions gets ${n(setup.contextSize)} tokens`}
        >
          {setupLine(setup)}
        </span>
      )}
      {last && (
        <span className="last-request" data-testid="status-last-request">
          Last request #{rows.length} · {n(last.reusedTokens)} reused · {n(last.newTokens)} new · prefill {seconds(last.prefillMs)} · {n(last.outputTokens)} tokens in {seconds(last.generationMs)}
          {last.cause && <span className="tag amber">{last.cause}</span>}
        </span>
      )}
      {last?.contextSize !== undefined && (
        <span data-testid="status-context" title="The last request's prompt tokens against the context size">
          Context {n(last.promptTokens)} of {n(last.contextSize)}
          <span className="share-bar context-bar">
            <span className="context-used" style={{ width: percent(last.promptTokens, last.contextSize) }} />
          </span>
          {percent(last.promptTokens, last.contextSize)}
        </span>
      )}
      {sandbox && !sandbox.on && (
        <span className="tag amber" data-testid="status-sandbox" title={sandbox.text}>
          No sandbox: every command that is not read-only asks
        </span>
      )}
      <span className="grow" />
      {sha && <span className="mono muted prompt-sha">system prompt {sha.slice(0, 8)}</span>}
    </footer>
  );
}
