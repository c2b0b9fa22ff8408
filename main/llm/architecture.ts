/**
 * What a model's architecture means for reusing its cache, read from the GGUF through node-llama-cpp's
 * insights — never from the model's name — so an architecture Keel has never seen is handled by what
 * it is: a plain transformer reuses any prefix of its cache; a sliding-window model keeps only the
 * window unless the full cache is kept; a recurrent or hybrid model's state cannot be cut back to a
 * prefix at all, so any request that departs from the previous one restarts from a checkpoint taken
 * at or before the point of departure, or from token 0.
 */
import type { GgufInsights } from 'node-llama-cpp';
import type { Architecture, ArchitectureClass, CacheStrategy } from './localSettings.js';

export type { Architecture, ArchitectureClass, CacheStrategy };

type Insights = Pick<GgufInsights, 'isHybrid' | 'isRecurrent' | 'swaSize' | 'isSupportedByLlamaCpp' | 'ggufFileInfo'>;

export function architectureOf(insights: Insights): Architecture {
  const name = String(insights.ggufFileInfo.metadata?.general?.architecture ?? 'unknown');
  const window = insights.swaSize;
  const cls: ArchitectureClass = insights.isHybrid ? 'hybrid' : insights.isRecurrent ? 'recurrent' : window !== undefined ? 'sliding window' : 'transformer';
  return { name, class: cls, ...(window !== undefined && { window }), supported: insights.isSupportedByLlamaCpp };
}

/** Whether this architecture can reuse a cut-back prefix only from a checkpoint, given how its window layers are kept. */
export function needsCheckpoints(arch: Architecture, fullWindowCache: boolean): boolean {
  return arch.class === 'hybrid' || arch.class === 'recurrent' || (arch.class === 'sliding window' && !fullWindowCache);
}

export function strategyOf(arch: Architecture, fullWindowCache: boolean): CacheStrategy {
  if (needsCheckpoints(arch, fullWindowCache)) return 'checkpoints';
  return arch.class === 'sliding window' ? 'full window cache' : 'prefix';
}

/** The strategy in a sentence, for `keel doctor`, `check-model` and Settings. */
export function strategyWords(arch: Architecture, strategy: CacheStrategy): string {
  if (strategy === 'prefix') return 'Any prefix of the cache is reused; nothing else is kept.';
  if (strategy === 'full window cache') {
    return `The sliding-window layers keep every token, not only the last ${arch.window ?? '?'}, so any prefix is reused as on a plain transformer.`;
  }
  const state = arch.class === 'sliding window' ? `the ${arch.window ?? '?'}-token window` : 'the recurrent state';
  return `${cap(state)} cannot be cut back to a prefix: Keel keeps checkpoints of it where the next request can depart `
    + '(the end of each prompt, the start of each turn) and restores the nearest one.';
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
