import { useEffect } from 'react';
import type { ContextPart } from '../../../../main/contract.js';
import { n, percent } from '../../lib/format.js';
import { useKeel } from '../../stores/store.js';

/**
 * The next message's request by part (main's context view): a bar of the parts to scale, each
 * cached then new, and a table with what each part's going would re-read. The figures are main's;
 * they are asked again after each turn, never while the session answers.
 */
export function ContextPanel() {
  const sessionId = useKeel((s) => s.requests.sessionId);
  const requests = useKeel((s) => s.requests.rows.length);
  const view = useKeel((s) => s.requests.context);
  const error = useKeel((s) => s.requests.contextError);
  const running = useKeel((s) => s.transcript.running);
  useEffect(() => {
    if (sessionId !== undefined && !running) void useKeel.getState().requests.loadContext(sessionId);
  }, [sessionId, requests, running]);

  return (
    <section className="panel context-panel" data-testid="context-panel">
      <header className="row">
        <strong>Next request by part</strong>
        {view && (
          <span className="muted small" data-testid="context-summary">
            {n(view.promptTokens)} prompt tokens{view.exact ? '' : ' (estimated)'}: {n(view.cachedTokens)} cached, {n(view.newTokens)} new · context {n(view.contextSize)}
          </span>
        )}
        <span className="grow" />
        <span className="legend">
          <span className="swatch reused" /> cached <span className="swatch fresh" /> read anew
        </span>
      </header>
      {!view && <p className="muted small">{running ? 'Shown once the reply ends.' : error ?? 'Measuring…'}</p>}
      {view && (
        <>
          <div className="context-stack" data-testid="context-bar">
            {view.parts.map((part, i) => part.tokens > 0 && <Segment key={i} part={part} index={i} total={view.promptTokens} />)}
          </div>
          <div className="table-scroll">
            <table className="request-table context-table" data-testid="context-table">
              <thead>
                <tr>
                  <th>Part</th>
                  <th className="num">Tokens</th>
                  <th className="num">Cached</th>
                  <th className="num">New</th>
                  <th className="num">Re-read if it went</th>
                </tr>
              </thead>
              <tbody>
                {view.parts.map((part, i) => (
                  <tr key={i} data-testid={`context-row-${i}`}>
                    <td title={part.located ? undefined : 'Not found as written: the template writes it otherwise; the part holds the template text between its neighbours.'}>
                      {part.label}{part.located ? '' : ' *'}
                    </td>
                    <td className="num">{n(part.tokens)}</td>
                    <td className="num reused-text">{n(part.cachedTokens)}</td>
                    <td className="num fresh-text">{n(part.newTokens)}</td>
                    <td className="num">{n(part.tokensRereadIfGone)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p className="muted small">Each part holds its own text and the template text just before it; the parts sum to the prompt tokens.</p>
        </>
      )}
    </section>
  );
}

/** One part in the bar: its width its share of the prompt, cached then new. */
function Segment({ part, index, total }: { part: ContextPart; index: number; total: number }) {
  return (
    <span
      className={`context-segment kind-${part.kind}`}
      style={{ width: percent(part.tokens, total) }}
      title={`${part.label}: ${n(part.tokens)} tokens, ${n(part.cachedTokens)} cached, ${n(part.newTokens)} new; ${n(part.tokensRereadIfGone)} re-read if it went`}
      data-testid={`context-segment-${index}`}
    >
      <span className="context-cached" style={{ width: percent(part.cachedTokens, part.tokens) }} />
      <span className="context-new" style={{ width: percent(part.newTokens, part.tokens) }} />
    </span>
  );
}
