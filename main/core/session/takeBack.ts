import { formatId } from '../hygiene/ids.js';
import { namedResult } from '../hygiene/named.js';
import type { ResultRow, Turn } from './types.js';

/**
 * Why a turn cannot be deleted while the turns after it stay, or undefined when it can: a later
 * kept result that is a stub or a `Same result as` naming one of its results would name a result
 * the request no longer carries (spec §2). Rewinding to it takes those later turns back too.
 */
export function deleteProblem(turn: Turn, later: readonly Turn[], results: readonly ResultRow[]): string | undefined {
  const own = new Set(results.filter((r) => r.turnId === turn.id).map((r) => r.number));
  const laterIds = new Map(later.map((t) => [t.id, t.seq]));
  for (const r of results) {
    const seq = laterIds.get(r.turnId);
    const named = seq === undefined ? undefined : namedResult(r);
    if (named !== undefined && own.has(named)) {
      return `turn ${seq}'s ${formatId(r.number)} stands for ${formatId(named)} from it, and a stub may name only a result the request carries; rewind to turn ${turn.seq} instead`;
    }
  }
  return undefined;
}

/** The turn holding the newest plan note among these, if any. */
export function lastPlanNote(turns: readonly Turn[]): Turn | undefined {
  return turns.filter((t) => t.notes.some((n) => n.kind === 'plan')).at(-1);
}
