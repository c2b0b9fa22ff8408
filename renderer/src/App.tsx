import { useEffect } from 'react';
import { getApi } from './api.js';
import { ErrorBanner } from './components/common/ErrorBanner.js';
import { ErrorBoundary } from './components/common/ErrorBoundary.js';
import { CacheView } from './components/cache/CacheView.js';
import { ChangesView } from './components/changes/ChangesView.js';
import { PutBackNotice } from './components/changes/PutBackNotice.js';
import { ServersView } from './components/servers/ServersView.js';
import { FirstRun } from './components/FirstRun.js';
import { SettingsButton } from './components/settings/SettingsButton.js';
import { Inspector } from './components/inspector/Inspector.js';
import { PlanPanel } from './components/plan/PlanPanel.js';
import { Sidebar } from './components/sidebar/Sidebar.js';
import { StatusBar } from './components/StatusBar.js';
import { ModelChip } from './components/topbar/ModelChip.js';
import { TopBar } from './components/topbar/TopBar.js';
import { Approvals } from './components/transcript/ApprovalCard.js';
import { Composer } from './components/transcript/Composer.js';
import { Transcript } from './components/transcript/Transcript.js';
import { dispatch } from './events.js';
import { MOD, useNarrowWindow, useShortcuts } from './shortcuts.js';
import { useConnection } from './stores/useConnection.js';
import { useModel } from './stores/useModel.js';
import { useKeel } from './stores/store.js';
import { useTranscript } from './stores/useTranscript.js';
import { useUi } from './stores/useUi.js';

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
      useConnection.getState().set(state, detail);
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
  const listShown = useUi((s) => s.sidebarOpen);
  return (
    <div className="placeholder muted" data-testid="no-session">
      {listShown ? (
        'Choose a session on the left, or start a new one.'
      ) : (
        <>
          Open the sessions list to choose a session or start a new one.{' '}
          <button type="button" onClick={() => useUi.getState().setSidebar(true)} data-testid="open-sessions-list">
            Open the sessions list
          </button>
        </>
      )}
    </div>
  );
}

function Main() {
  const app = useModel((s) => s.app);
  const tab = useUi((s) => s.tab);
  const sessionId = useTranscript((s) => s.sessionId);
  const hasSession = sessionId !== undefined;
  if (!hasSession && app && !app.loadedModel && !app.lastModel) return <FirstRun />;
  if (!hasSession) return <NoSession />;
  if (tab === 'plan') {
    return (
      <ErrorBoundary label="The plan">
        <PlanPanel key={sessionId} />
      </ErrorBoundary>
    );
  }
  if (tab === 'changes') {
    return (
      <ErrorBoundary label="The Changes view">
        <ChangesView />
      </ErrorBoundary>
    );
  }
  if (tab === 'servers') {
    return (
      <ErrorBoundary label="The Servers panel">
        <ServersView />
      </ErrorBoundary>
    );
  }
  return tab === 'cache' ? (
    <ErrorBoundary label="The cache view">
      <CacheView />
    </ErrorBoundary>
  ) : (
    <ErrorBoundary label="The transcript">
      <Transcript />
    </ErrorBoundary>
  );
}

export function App() {
  useMain();
  useShortcuts();
  useNarrowWindow();
  const inspectorOpen = useUi((s) => s.inspectorOpen);
  const sidebarOpen = useUi((s) => s.sidebarOpen);
  const problem = useModel((s) => s.app?.problem);
  const title = useTranscript((s) => s.view?.summary);
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
          onClick={() => useUi.getState().setSidebar(!sidebarOpen)}
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
        <SettingsButton />
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
      {inspectorOpen && (
        <ErrorBoundary label="The Recall inspector">
          <Inspector />
        </ErrorBoundary>
      )}
      <StatusBar />
    </div>
  );
}
