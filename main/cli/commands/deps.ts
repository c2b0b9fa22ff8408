/**
 * A command-line session's dependencies: the app's one builder (main/app/sessionDeps.ts) on Keel's data
 * folder, its errors as the CLI says them, and who answers the gate (the chat prompt, once it runs).
 * Kept apart from conversation.ts so `keel exec` loads no engine.
 */
import type { Approver } from '../../core/permissions/approval.js';
import type { SessionDeps } from '../../core/session/session.js';
import { describeSandbox } from '../../core/tools/commandRunner.js';
import type { ExternalTools } from '../../core/tools/external.js';
import type { SqliteStore } from '../../db/store.js';
import { keelHome } from '../../keelHome.js';
import { buildSessionDeps } from '../../app/sessionDeps.js';
import { CliError, type Writer } from '../io.js';

/** Who answers the gate's questions: the chat prompt sets it; without one, whatever asks is denied. */
export interface Approvals {
  approve?: Approver;
}

/** A session of the command line: the app's dependencies (sessionDeps.ts) on Keel's data folder. */
export function cliSessionDeps(store: SqliteStore, approvals: Approvals, external?: ExternalTools): SessionDeps {
  try {
    return buildSessionDeps({
      store, dataFolder: keelHome(), external,
      approve: (request) => (approvals.approve ? approvals.approve(request) : Promise.resolve('deny')),
    });
  } catch (e) {
    throw new CliError((e as Error).message);
  }
}

/** Says so on stderr when commands cannot be sandboxed here (nothing when they can). */
export async function sandboxNotice(deps: SessionDeps, err: Writer): Promise<void> {
  const status = await deps.commands?.status();
  if (status && status.kind !== 'sandboxed') err.write(`keel: ${describeSandbox(status)}\n`);
}
