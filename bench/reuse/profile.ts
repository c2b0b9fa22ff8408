/**
 * Where a Keel run's time goes outside the model (KEEL_REUSE_PROFILE=1): the session's deps
 * wrapped so each part is timed where it runs — the tools' own runs (a bash command's sandbox
 * start and process included), the checkpoints' snapshots, the store's calls, the bench's own
 * probe and event handling — against the model's prefill and generation the requests record.
 * What is left is the loop itself: building, rendering and tokenizing the conversation, the gate,
 * hygiene, the reply reader between tokens.
 */
import type { SessionDeps } from '../../main/core/session/session.js';
import type { RequestRow } from '../../main/core/state/types.js';
import { ToolRegistry } from '../../main/core/tools/registry.js';
import type { Tool } from '../../main/core/tools/types.js';
import { fmt, secs } from './numbers.js';

interface Part { n: number; ms: number }

export class RunProfile {
  private readonly parts = new Map<string, Part>();

  add(key: string, ms: number): void {
    const p = this.parts.get(key) ?? { n: 0, ms: 0 };
    p.n++;
    p.ms += ms;
    this.parts.set(key, p);
  }

  /** The time so far of the parts whose key starts with `prefix`. */
  total(prefix: string): number {
    let ms = 0;
    for (const [key, p] of this.parts) if (key.startsWith(prefix)) ms += p.ms;
    return ms;
  }

  /** Times `f` under `key` (a promise until it settles). */
  time<T>(key: string, f: () => T): T {
    const t0 = performance.now();
    const out = f();
    if (out instanceof Promise) return out.finally(() => this.add(key, performance.now() - t0)) as T;
    this.add(key, performance.now() - t0);
    return out;
  }

  /** The built-in tools, each run timed by its name. */
  tools(): ToolRegistry {
    const time = this.time.bind(this);
    return new (class extends ToolRegistry {
      override get(name: string): Tool | undefined {
        const tool = super.get(name);
        return tool && { ...tool, run: (args, ctx) => time(`tool ${name}`, () => tool.run(args, ctx)) };
      }
    })();
  }

  /** The deps with their store's and checkpoints' calls timed. */
  wrap(deps: SessionDeps): SessionDeps {
    const open = deps.checkpoints;
    return {
      ...deps,
      store: this.timedObject('store', deps.store),
      checkpoints: open && ((id, root, o) => this.timedObject('checkpoints', open(id, root, o))),
    };
  }

  private timedObject<T extends object>(label: string, target: T): T {
    return new Proxy(target, {
      get: (t, key, receiver) => {
        const v = Reflect.get(t, key, receiver) as unknown;
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => this.time(`${label}.${String(key)}`, () => (v as (...a: unknown[]) => unknown).apply(t, args));
      },
    });
  }

  /** The breakdown of `elapsedMs`, largest first, the model's own time from the request rows. */
  lines(elapsedMs: number, rows: readonly RequestRow[], sequenceGenerationMs: number): string[] {
    const prefill = rows.reduce((n, r) => n + r.prefillMs, 0);
    const generation = rows.reduce((n, r) => n + r.generationMs, 0);
    const generated = rows.reduce((n, r) => n + (r.outputTokens ?? 0), 0);
    const grouped = new Map<string, Part>();
    for (const [key, p] of this.parts) {
      const group = key.startsWith('store.') ? 'store (all calls)' : key.startsWith('checkpoints.') ? `checkpoints (${key.slice(12)})` : key;
      const g = grouped.get(group) ?? { n: 0, ms: 0 };
      g.n += p.n;
      g.ms += p.ms;
      grouped.set(group, g);
    }
    // Store calls inside a tool's run are counted under the store; the tools' own figures keep them (small).
    const measured = [...grouped].filter(([k]) => !k.startsWith('store')).reduce((n, [, p]) => n + p.ms, 0) + (grouped.get('store (all calls)')?.ms ?? 0);
    const rest = elapsedMs - prefill - generation - measured;
    const row = (label: string, ms: number, n?: number) =>
      `  ${label.padEnd(40)} ${secs(ms).padStart(9)}  ${(100 * ms / elapsedMs).toFixed(1).padStart(5)}%${n ? `  ${fmt(n)} calls, ${(ms / n).toFixed(1)} ms each` : ''}`;
    return [
      `where the run's ${secs(elapsedMs)} went (${rows.length} requests):`,
      row('model prefill (rows)', prefill, rows.length),
      row(`model generation (rows, ${fmt(generated)} tokens)`, generation, rows.length),
      row('  of which the sequence decoding (probe)', sequenceGenerationMs, generated),
      row('  of which between tokens (reply reader)', generation - sequenceGenerationMs, generated),
      ...[...grouped].sort((a, b) => b[1].ms - a[1].ms).map(([k, p]) => row(k, p.ms, p.n)),
      row('the rest (loop, render, tokenize, gate, hygiene)', rest, rows.length),
    ];
  }
}
