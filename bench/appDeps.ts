/**
 * A bench's session deps, built as the app builds them (main/app/sessionDeps.ts: tools, OS sandbox,
 * rules, hooks, checkpoints, guarded folders from `dataFolder`), with the command runner checked:
 * a command that would run without the OS sandbox is not run and is named in `missing`, which the
 * bench reports as a failed check (bench/checks.ts) instead of measuring something else quietly.
 * A bench whose session runs commands also calls `requireSandbox(deps, name)` before it starts.
 */
import type { SessionDeps } from '../main/core/session/session.js';
import { buildSessionDeps, expectSandbox, type DepsOptions } from '../main/app/sessionDeps.js';

export interface BenchDeps {
  deps: SessionDeps;
  /** Each command that was to run without the sandbox, why (empty while all is well). */
  missing: string[];
}

export function appDeps(o: DepsOptions): BenchDeps {
  const missing: string[] = [];
  const built = buildSessionDeps(o);
  return { deps: { ...built, commands: expectSandbox(built.commands!, missing) }, missing };
}
