import { useEffect } from 'react';
import { hooksAttention, useHooks } from '../../stores/useHooks.js';
import { useRequests } from '../../stores/useRequests.js';
import { attention, useServers } from '../../stores/useServers.js';
import { useTranscript } from '../../stores/useTranscript.js';
import { useUi } from '../../stores/useUi.js';
import { Actions } from './Actions.js';
import { ModeSelector } from './ModeSelector.js';

/**
 * Tabs (Transcript / Cache / Plan / Changes / Servers), the mode and the session's actions. The model chip sits in the title
 * bar. Narrow (the inspector open), the actions show as icons with tooltips; narrower still, the
 * controls move to a second row rather than out of view.
 */
export function TopBar() {
  const tab = useUi((s) => s.tab);
  const breaks = useRequests((s) => s.rows.filter((r) => r.cause).length);
  const steps = useTranscript((s) => s.view?.plan.length ?? 0);
  const summary = useTranscript((s) => s.view?.summary);
  const hooks = useHooks((s) => hooksAttention(s.view));
  const servers = { problems: useServers((s) => attention(s.view).problems) + hooks, waiting: useServers((s) => attention(s.view).waiting) };
  // The badge needs the servers' state before the tab is opened.
  useEffect(() => {
    if (summary) void useServers.getState().load(summary.workspace, summary.id);
    if (summary) void useHooks.getState().load(summary.workspace);
  }, [summary?.workspace, summary?.id]);
  return (
    <div className="topbar">
      <nav className="tabs" role="tablist">
        <button type="button" role="tab" aria-selected={tab === 'transcript'} className={tab === 'transcript' ? 'on' : ''} onClick={() => useUi.getState().setTab('transcript')} data-testid="transcript-tab">
          Transcript
        </button>
        <button type="button" role="tab" aria-selected={tab === 'cache'} className={tab === 'cache' ? 'on' : ''} onClick={() => useUi.getState().setTab('cache')} data-testid="cache-tab">
          Cache {breaks > 0 && <span className="tag amber">{breaks} {breaks === 1 ? 'break' : 'breaks'}</span>}
        </button>
        <button type="button" role="tab" aria-selected={tab === 'plan'} className={tab === 'plan' ? 'on' : ''} onClick={() => useUi.getState().setTab('plan')} data-testid="plan-tab">
          Plan {steps > 0 && <span className="tag">{steps}</span>}
        </button>
        <button type="button" role="tab" aria-selected={tab === 'changes'} className={tab === 'changes' ? 'on' : ''} onClick={() => useUi.getState().setTab('changes')} data-testid="changes-tab">
          Changes
        </button>
        <button type="button" role="tab" aria-selected={tab === 'servers'} className={tab === 'servers' ? 'on' : ''} onClick={() => useUi.getState().setTab('servers')} data-testid="servers-tab">
          Servers {servers.problems > 0 && <span className="tag amber">{servers.problems} to see</span>}
          {servers.waiting > 0 && <span className="tag">{servers.waiting} for the next session</span>}
        </button>
      </nav>
      <div className="topbar-controls">
        <ModeSelector />
        <Actions />
      </div>
    </div>
  );
}
