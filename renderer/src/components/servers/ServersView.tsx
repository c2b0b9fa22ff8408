import { useEffect } from 'react';
import type { McpFileView, McpServerView } from '../../../../main/contract.js';
import { hooksAttention } from '../../stores/slices/hooks.js';
import { attention } from '../../stores/slices/servers.js';
import { useKeel } from '../../stores/store.js';
import { PriceLine } from '../price/PriceLine.js';
import { PriceQuestion } from '../price/PriceQuestion.js';
import { usePricedAction } from '../price/usePricedAction.js';
import { HooksPanel } from './HooksPanel.js';
import { ProjectFilesPanel } from './ProjectFilesPanel.js';

const STATE_TAG: Record<McpServerView['state'], string> = {
  connected: 'ok', connecting: '', stopped: '', failed: 'amber', disconnected: 'amber', 'not approved': 'amber',
};

/** A workspace file whose servers wait for the person: what would run, and the one button that lets it. */
function Approval({ file, servers }: { file: McpFileView; servers: McpServerView[] }) {
  const busy = useKeel((s) => Boolean(s.servers.busy.approve));
  return (
    <section className="panel servers-approval" data-testid="mcp-approval">
      <header className="row">
        <strong>{file.file} wants to start {file.servers.length === 1 ? 'a server' : `${file.servers.length} servers`}</strong>
        <span className="tag amber">not approved</span>
      </header>
      <p className="muted small">
        A workspace&apos;s own file runs nothing until you approve it as it is now (sha {file.hash.slice(0, 8)}); any later change asks again.
      </p>
      <ul className="mono small">
        {servers.map((s) => (
          <li key={s.name}>
            <strong>{s.name}</strong>: {s.launch}
            <Outside server={s} />
          </li>
        ))}
      </ul>
      <button type="button" className="ok" disabled={busy} onClick={() => void useKeel.getState().servers.approve(file.hash)} data-testid="mcp-approve">
        Approve and start
      </button>
    </section>
  );
}

/** What runs outside the sandbox before the server starts (its package install), or why its line is refused. */
function Outside({ server }: { server: McpServerView }) {
  if (server.fetches) {
    return (
      <div className="small" data-testid="mcp-fetches">
        <span className="tag amber">outside the sandbox</span> fetches {server.fetches}
      </div>
    );
  }
  return server.state === 'not approved' && server.lastError ? <div className="small server-error" data-testid="mcp-refused">{server.lastError}</div> : null;
}

/**
 * A session like the open one (workspace, kind, mode), whose tool list takes the servers' tools as
 * they are now; its first request reads the system prompt and tools anew, a price told before it
 * is paid and asked about above the person's limit.
 */
function NewSessionButton() {
  const summary = useKeel((s) => s.transcript.view?.summary);
  const priced = usePricedAction(summary && { kind: 'new tool list' }, true);
  if (!summary) return null;
  const start = () => void useKeel.getState().sessions.create({ workspace: summary.workspace, kind: summary.kind, mode: summary.mode });
  return (
    <>
      <button type="button" className="small" onClick={() => void priced.attempt(start)} data-testid="mcp-new-session" title="The open session stays as it is; the new one starts in the same workspace and mode">
        Start a new session with them
      </button>
      <PriceLine priced={priced} subject="Its first message" testId="mcp-new-session-price" />
      {priced.question && <PriceQuestion question={priced.question} />}
    </>
  );
}

function Server({ server }: { server: McpServerView }) {
  const busy = useKeel((s) => Boolean(s.servers.busy[server.name]));
  const { restart, trust } = useKeel.getState().servers;
  return (
    <section className="panel server" data-testid="mcp-server" data-server={server.name}>
      <header className="row">
        <strong>{server.name}</strong>
        <span className={`tag ${STATE_TAG[server.state]}`} data-testid="mcp-state">{server.state}</span>
        <span className="muted small">{server.scope === 'user' ? 'your file' : 'workspace file'}{server.via ? ` · ${server.via}` : ''}</span>
        <span className="grow" />
        <label className="small" title="Its read-only tools then run without asking">
          <input type="checkbox" checked={server.trusted} disabled={busy} onChange={(e) => void trust(server.name, e.target.checked)} data-testid="mcp-trust" />{' '}
          trust its read-only hints
        </label>
        {server.state !== 'not approved' && (
          <button type="button" disabled={busy} onClick={() => void restart(server.name)} data-testid="mcp-restart">
            Restart
          </button>
        )}
      </header>
      <div className="mono small muted">{server.launch}</div>
      {server.dataFolder && (
        <div className="small muted" data-testid="mcp-data-folder" title="What it writes between sessions (its XDG folders point here); the sandbox lets it write nothing else of Keel's data">
          data folder: <span className="mono">{server.dataFolder}</span>
        </div>
      )}
      {server.state === 'not approved' || <Outside server={{ ...server, lastError: undefined }} />}
      {server.lastError && (
        <pre className="server-error mono small" data-testid="mcp-error">
          {server.lastError}
        </pre>
      )}
      {server.waiting && server.waiting.length > 0 && (
        <div className="small" data-testid="mcp-waiting">
          <span className="tag amber">next session</span> {server.waiting.map((w) => `${w.name} (${w.change})`).join(', ')}: this session keeps the tool
          list it started with, so the model's cached prompt stays valid; a new session gets {server.waiting.length === 1 ? 'it' : 'them'}.{' '}
          <NewSessionButton />
        </div>
      )}
      {server.tools.length > 0 && (
        <ul className="server-tools small">
          {server.tools.map((t) => (
            <li key={t.name}>
              <span className="mono">{t.name}</span>
              {t.readOnly && <span className="tag">read-only</span>} <span className="muted">{t.description.split('\n')[0]}</span>
            </li>
          ))}
        </ul>
      )}
      {server.leftOut.map((l) => (
        <div key={l} className="small muted">left out: {l}</div>
      ))}
      {server.instructions && (
        <details className="small">
          <summary>Instructions it gives the model</summary>
          <pre className="mono">{server.instructions}</pre>
        </details>
      )}
    </section>
  );
}

/** The Servers tab: the open session's workspace's MCP servers, their state, tools and errors. */
export function ServersView() {
  const summary = useKeel((s) => s.transcript.view?.summary);
  const view = useKeel((s) => s.servers.view);
  const progress = useKeel((s) => (summary ? s.servers.progress[summary.id] : undefined));
  // The top bar loads the view for the open session (its tab badge needs it too).
  if (!view) return <div className="servers-view empty muted" data-testid="servers-view">Reading the MCP configuration…</div>;
  return (
    <div className="servers-view" data-testid="servers-view">
      {view.files.filter((f) => f.needsApproval).map((f) => (
        <Approval key={f.file} file={f} servers={view.servers.filter((s) => s.file === f.file)} />
      ))}
      {view.files.flatMap((f) => f.problems).map((p) => (
        <div key={p} className="banner banner-error" role="alert" data-testid="mcp-problem">
          {p}
        </div>
      ))}
      {progress && (
        <p className="small muted">
          {progress.tool}: {progress.progress}
          {progress.total !== undefined ? ` of ${progress.total}` : ''} {progress.message ?? ''}
        </p>
      )}
      {view.servers.filter((s) => s.state !== 'not approved').map((s) => (
        <Server key={s.name} server={s} />
      ))}
      {view.servers.length === 0 && (
        <p className="muted" data-testid="mcp-none">
          No MCP servers for {view.workspace}. Add them to {view.files.map((f) => f.file).join(' or ')} as
          {' {"mcpServers": {"NAME": {"command": …, "args": […]}}}'}.
        </p>
      )}
      <HooksPanel />
      <ProjectFilesPanel />
    </div>
  );
}

/**
 * Beside the Servers tab's name: what to see (servers and hooks files in trouble or waiting for
 * approval) and what waits for the next session. The badge needs their state before the tab is
 * opened: it loads them for the open session.
 */
export function ServersBadge() {
  const summary = useKeel((s) => s.transcript.view?.summary);
  const hooks = useKeel((s) => hooksAttention(s.hooks.view));
  const problems = useKeel((s) => attention(s.servers.view).problems) + hooks;
  const waiting = useKeel((s) => attention(s.servers.view).waiting);
  useEffect(() => {
    if (summary) void useKeel.getState().servers.load(summary.workspace, summary.id);
    if (summary) void useKeel.getState().hooks.load(summary.workspace);
  }, [summary?.workspace, summary?.id]);
  return (
    <>
      {problems > 0 && <span className="tag amber">{problems} to see</span>}
      {waiting > 0 && <span className="tag">{waiting} for the next session</span>}
    </>
  );
}
