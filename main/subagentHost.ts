/**
 * The one way subagents are hosted — by the app, the CLI and the benchmarks — so that a child runs
 * the same way wherever its parent does: on an engine of its own (a context sequence or a server
 * slot of the parent's model: the parent's cache is not touched), starting from the prefix it shares
 * with its siblings, its replies scripted where the host's are.
 */
import type { Engine } from './core/engine/types.js';
import type { Session } from './core/session/session.js';
import type { SessionDeps } from './core/state/deps.js';
import type { Script } from './core/turn/loop.js';
import { Subagents, type ChildHost } from './core/turn/subagents.js';
import { openAgent } from './openEngine.js';

export interface ChildHosting {
  /** An engine of its own on the model the child's parent runs on (`child.model`); throws where it cannot be had. */
  engine(child: Session): Promise<Engine>;
  /** Scripted replies for a child (tests and benchmarks), as for any session of the host. */
  script?(childId: number): Script | undefined;
  /** A child's state and events, for the person. */
  onChild?: ChildHost['onChild'];
}

/** Sets `deps.subagents`: the `task` tool of every session on these deps runs its children here. */
export function hostSubagents(deps: SessionDeps, o: ChildHosting): void {
  const subagents = new Subagents(deps, {
    async open(child, { maxSteps, onEvent }) {
      const engine = await o.engine(child);
      const loop = openAgent({
        session: child, store: deps.store, promptsDir: deps.promptsDir, engine, maxSteps, sharePrefix: true, script: o.script?.(child.id), onEvent,
      });
      return { loop, close: () => loop.dispose() };
    },
    onChild: o.onChild,
  });
  deps.subagents = (row) => subagents.forParent(row);
}
