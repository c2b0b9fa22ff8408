import type { SqliteStore } from '../../db/store.js';
import { formatTable, ms } from '../format.js';
import { requireSession, type Writer } from '../io.js';

/** `keel requests ID` (and `/requests`): each request to the model and how much of its prompt the cache held. */
export function showRequests(store: SqliteStore, sessionId: number, out: Writer): void {
  requireSession(store, sessionId);
  const requests = store.listRequests(sessionId);
  if (requests.length === 0) {
    out.write(`Session ${sessionId} has made no requests yet.\n`);
    return;
  }
  const rows = requests.map((r, i) => [
    String(i + 1), r.turn === undefined ? '-' : String(r.turn), r.kind === 'compaction' ? 'summary' : r.answers === 'results' ? 'tool step' : 'person', String(r.promptTokens), String(r.reusedTokens), String(r.newTokens), String(r.outputTokens),
    ms(r.prefillMs), ms(r.generationMs), r.firstDiff === undefined ? '-' : String(r.firstDiff), r.cause ?? '-',
    r.systemSha.slice(0, 8),
  ]);
  out.write(formatTable(
    [
      { title: '#', right: true }, { title: 'turn', right: true }, { title: 'kind' }, { title: 'prompt', right: true }, { title: 'reused', right: true },
      { title: 'new', right: true }, { title: 'output', right: true }, { title: 'prefill ms', right: true },
      { title: 'gen ms', right: true }, { title: 'first diff', right: true }, { title: 'cause' }, { title: 'system sha' },
    ],
    rows,
  ));
  // A server engine's figures are the server's own report; where it reported none, it says so.
  const server = requests.flatMap((r) => (r.engine?.server ? [r.engine.server] : []));
  if (server.length > 0) {
    out.write(`Reused tokens of requests to ${server[0].url}: reported by server${server.some((s) => s.cachedTokens === null) ? ' (where the server did not report them: not reported, shown as 0)' : ''}.\n`);
    for (const [i, r] of requests.entries()) {
      const change = r.engine?.server?.change;
      if (change) out.write(`  request ${i + 1}: ${change.message < 0 ? 'the tools array' : `message ${change.message}`} differed from what was sent before at byte ${change.byte} (${r.cause ?? 'no cause named'}).\n`);
    }
  }
}
