import { useEffect } from 'react';
import { getApi } from './api.js';
import { ErrorBanner } from './components/common/ErrorBanner.js';
import { ErrorBoundary } from './components/common/ErrorBoundary.js';
import { PutBackNotice } from './components/changes/PutBackNotice.js';
import { FirstRun } from './components/FirstRun.js';
import { panels, type Panel } from './components/panels.js';
import { Sidebar } from './components/sidebar/Sidebar.js';
import { StatusBar } from './components/StatusBar.js';
import { ModelChip } from './components/topbar/ModelChip.js';
import { TopBar } from './components/topbar/TopBar.js';
import { Approvals } from './components/transcript/ApprovalCard.js';
import { Composer } from './components/transcript/Composer.js';
import { dispatch } from './events.js';
import { MOD, useNarrowWindow, useShortcuts } from './shortcuts.js';
import { useKeel } from './stores/store.js';

const tabs = panels.filter((p) => p.place === 'tab');
const side = panels.filter((p) => p.place === 'side');
const titleBar = panels.filter((p) => p.place === 'title');

/** A panel's component, behind its own error boundary where it has one. */
function Shown({ panel }: { panel: Panel }) {
  if (panel.what === undefined) return <panel.Component />;
  return (
    <ErrorBoundary label={panel.what}>
      <panel.Component />
    </ErrorBoundary>
  );
}

/** Reads everything main knows again (at start, and after the link comes back). */
async function sync(): Promise<void> {
  const { model, sessions, approvals } = useKeel.getState();
  await Promise.all([model.refreshState(), sessions.refresh(), approvals.load()]);
  const id = useKeel.getState().sessions.currentId;
  if (id !== undefined) await useKeel.getState().sessions.open(id);
}

/** Wires the transport to the stores once, for the app's lifetime. */
function useMain(): void {
  useEffect(() => {
    const api = getApi();
    const offEvent = api.onEvent(dispatch);
    let wasDown = false;
    const offConnection = api.onConnection?.((state, detail) => {
      useKeel.getState().connection.set(state, detail);
      if (state === 'disconnected') wasDown = true;
      else if (state === 'connected' && wasDown) {
        wasDown = false;
        void sync();
      }
    });
    void sync();
    return () => {
      offEvent();
      offConnection?.();
    };
  }, []);
}

/** No session open: where the sessions list is, or a button that opens it when it is collapsed. */
function NoSession() {
  const listShown = useKeel((s) => s.ui.sidebarOpen);
  return (
    <div className="placeholder muted" data-testid="no-session">
      {listShown ? (
        'Choose a session on the left, or start a new one.'
      ) : (
        <>
          Open the sessions list to choose a session or start a new one.{' '}
          <button type="button" onClick={() => useKeel.getState().ui.setSidebar(true)} data-testid="open-sessions-list">
            Open the sessions list
          </button>
        </>
      )}
    </div>
  );
}

function Main() {
  const app = useKeel((s) => s.model.app);
  const tab = useKeel((s) => s.ui.tab);
  const hasSession = useKeel((s) => s.transcript.sessionId !== undefined);
  if (!hasSession && app && !app.loadedModel && !app.lastModel) return <FirstRun />;
  if (!hasSession) return <NoSession />;
  // Any other tab shows the first, the transcript.
  return <Shown panel={tabs.find((p) => p.id === tab) ?? tabs[0]!} />;
}

export function App() {
  useMain();
  useShortcuts(panels);
  useNarrowWindow();
  const inspectorOpen = useKeel((s) => s.ui.inspectorOpen);
  const sidebarOpen = useKeel((s) => s.ui.sidebarOpen);
  const problem = useKeel((s) => s.model.app?.problem);
  const title = useKeel((s) => s.transcript.view?.summary);
  return (
    <div className={`app${inspectorOpen ? ' with-inspector' : ''}${sidebarOpen ? '' : ' sidebar-closed'}`}>
      {/* Collapsed, the sidebar is hidden, not unmounted: a half-filled new-session form stays. */}
      <ErrorBoundary label="The session list">
        <Sidebar />
      </ErrorBoundary>
      <div className="titlebar">
        <button
          type="button"
          className="ghost sidebar-toggle"
          onClick={() => useKeel.getState().ui.setSidebar(!sidebarOpen)}
          title={`${sidebarOpen ? 'Hide' : 'Show'} the sessions (${MOD}+B)`}
          aria-expanded={sidebarOpen}
          aria-label="Sessions"
          data-testid="sidebar-toggle"
        >
          ☰
        </button>
        <span className="crumbs">
          {title ? (
            <>
              <span className="muted">{title.workspace || 'chat'}</span> / <strong>{title.title}</strong>
            </>
          ) : (
            <strong>Keel</strong>
          )}
        </span>
        <span className="grow" />
        <ModelChip />
        {titleBar.map((p) => <Shown key={p.id} panel={p} />)}
      </div>
      <main className="main">
        <TopBar />
        {problem && (
          <div className="banner banner-error" role="alert" data-testid="error-banner">
            {problem}
          </div>
        )}
        <ErrorBanner />
        <PutBackNotice />
        <div className="content">
          <Main />
        </div>
        <Approvals />
        <Composer />
      </main>
      {inspectorOpen && side.map((p) => <Shown key={p.id} panel={p} />)}
      <StatusBar />
    </div>
  );
}
