import type { ReactNode } from 'react';
import { n, percent, seconds } from '../../lib/format.js';
import { useKeel } from '../../stores/store.js';
import { CacheChart } from './CacheChart.js';
import { ContextPanel } from './ContextPanel.js';
import { RequestTable } from './RequestTable.js';

function Card({ label, children, className = '' }: { label: string; children: ReactNode; className?: string }) {
  return (
    <div className={`card ${className}`}>
      <div className="card-label">{label}</div>
      <div className="card-value">{children}</div>
    </div>
  );
}

/** How much of each request came from the KV cache, over the session, and the next request by part (the figures are main's). */
export function CacheView() {
  const rows = useKeel((s) => s.requests.rows);
  if (rows.length === 0) {
    return (
      <div className="cache-view" data-testid="cache-view">
        <p className="muted">No model requests in this session yet.</p>
        <ContextPanel />
      </div>
    );
  }
  const prompt = rows.reduce((a, r) => a + r.promptTokens, 0);
  const reused = rows.reduce((a, r) => a + r.reusedTokens, 0);
  const fresh = rows.reduce((a, r) => a + r.newTokens, 0);
  const prefill = rows.reduce((a, r) => a + r.prefillMs, 0);
  const maxPrefill = Math.max(...rows.map((r) => r.prefillMs));
  const breaks = rows.filter((r) => r.cause);
  return (
    <div className="cache-view" data-testid="cache-view">
      <div className="cards">
        <Card label="Requests">{n(rows.length)}</Card>
        <Card label="Prompt tokens, all requests">{n(prompt)}</Card>
        <Card label={rows.some((r) => r.engine?.server) ? 'Reused from KV cache (reported by server)' : 'Reused from KV cache'} className="reused-card">
          {n(reused)} <small>{percent(reused, reused + fresh)}</small>
        </Card>
        <Card label="Evaluated anew" className="fresh-card">
          {n(fresh)} <small>{percent(fresh, reused + fresh)}</small>
        </Card>
        <Card label="Prefill time">
          {seconds(prefill)} <small>{seconds(maxPrefill)} max</small>
        </Card>
        <Card label="Breaks">
          {breaks.length} <small>{[...new Set(breaks.map((b) => b.cause))].join(' · ')}</small>
        </Card>
      </div>
      <section className="panel">
        <header className="row">
          <strong>Prompt tokens per request</strong>
          <span className="muted small">each bar is one model call; x = request number</span>
          <span className="grow" />
          <span className="legend">
            <span className="swatch reused" /> reused from KV cache <span className="swatch fresh" /> evaluated anew <span className="swatch break" /> break
          </span>
        </header>
        <CacheChart rows={rows} />
      </section>
      <ContextPanel />
      <RequestTable rows={rows} />
    </div>
  );
}

/** Beside the Cache tab's name: the requests whose cache broke. */
export function CacheBadge() {
  const breaks = useKeel((s) => s.requests.rows.filter((r) => r.cause).length);
  return breaks > 0 ? <span className="tag amber">{breaks} {breaks === 1 ? 'break' : 'breaks'}</span> : null;
}
