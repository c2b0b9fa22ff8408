import type { RequestRow } from '../../../../main/contract.js';
import { modelName, ms, n, percent } from '../../lib/format.js';

/** Every request's figures as main recorded them, one row each. */
export function RequestTable({ rows }: { rows: RequestRow[] }) {
  return (
    <div className="table-scroll">
      <table className="request-table" data-testid="cache-table">
        <thead>
          <tr>
            <th>Req</th>
            <th className="num">Turn</th>
            <th>Kind</th>
            <th>Model</th>
            <th className="num">Prompt tokens</th>
            <th className="num">Reused from KV cache</th>
            <th className="num">Evaluated anew</th>
            <th>Reused share</th>
            <th className="num">Cached before</th>
            <th className="num">Output</th>
            <th className="num">Prefill ms</th>
            <th className="num">Gen ms</th>
            <th className="num">First differing token</th>
            <th>Cause</th>
            <th>System prompt sha</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={row.id} className={row.cause ? 'break' : ''} data-testid={`cache-row-${i + 1}`} data-request-id={row.id}>
              <td className="num">{i + 1}</td>
              <td className="num">{row.turn ?? '—'}</td>
              <td>{row.kind === 'compaction' ? 'summary' : row.answers === 'results' ? 'tool step' : row.answers === 'person' ? 'person' : 'turn'}</td>
              <td className="model" title={row.model}>
                {modelName(row.model)}
              </td>
              <td className="num">{n(row.promptTokens)}</td>
              <td className="num reused-text" title={row.engine?.server ? `reported by server ${row.engine.server.url}` : undefined}>
                {row.engine?.server?.cachedTokens === null ? 'not reported' : n(row.reusedTokens)}
                {row.engine?.server && row.engine.server.cachedTokens !== null && <small className="muted"> reported by server</small>}
              </td>
              <td className="num fresh-text">{n(row.newTokens)}</td>
              <td>
                <span className="share">
                  <span className="share-bar">
                    <span className="share-reused" style={{ width: percent(row.reusedTokens, row.reusedTokens + row.newTokens) }} />
                  </span>
                  {percent(row.reusedTokens, row.reusedTokens + row.newTokens)}
                </span>
              </td>
              <td className="num">{n(row.cachedBefore)}</td>
              <td className="num">
                {n(row.outputTokens)}
                {row.engine?.speculation && (
                  <small className="muted" data-testid={`cache-drafts-${i + 1}`} title="Tokens drafted from the session's own text and checked by the model in the same step: each accepted one saved a step; the reply is the same either way.">
                    {' '}
                    {draftText(row.engine.speculation)}
                  </small>
                )}
              </td>
              <td className="num">{ms(row.prefillMs)}</td>
              <td className="num">{ms(row.generationMs)}</td>
              <td className="num">{row.firstDiff === undefined ? '—' : n(row.firstDiff)}</td>
              <td>
                {row.cause ? <span className="tag amber">{row.cause}</span> : '—'}
                {row.engine?.checkpoint && (
                  <small className="muted checkpoint-use" data-testid={`cache-checkpoint-${i + 1}`}>
                    {' '}
                    {checkpointText(row.engine.checkpoint)}
                  </small>
                )}
              </td>
              <td className="mono">{row.systemSha.slice(0, 8)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Where a request on a hybrid or sliding-window model resumed after departing from the cache (the engine's CheckpointUse). */
export function checkpointText(c: NonNullable<NonNullable<RequestRow['engine']>['checkpoint']>): string {
  return c.restoredAt === null
    ? `no checkpoint kept before the departure (${c.why ?? 'none was taken'}): re-read ${n(c.reread)} tokens from token 0`
    : `restored checkpoint at token ${n(c.restoredAt)}, re-read ${n(c.reread)} tokens`;
}

/** What a request's drafts came to (speculative decoding): accepted of drafted, and why drafting stopped where it did. */
export function draftText(d: NonNullable<NonNullable<RequestRow['engine']>['speculation']>): string {
  const drafted = d.accepted + d.refuted;
  const share = drafted === 0 ? '' : ` (${Math.round((100 * d.accepted) / drafted)} %)`;
  return `${n(d.accepted)} of ${n(drafted)} drafted accepted${share}${d.off ? `; drafting off: ${d.off}` : ''}`;
}
