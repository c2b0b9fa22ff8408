import { permissionRules, sandboxOptions } from '../../app/settings.js';
import type { Approver } from '../../core/permissions/approval.js';
import { DEFAULT_PROMPTS_DIR } from '../../core/prompts/buildSystemPrompt.js';
import type { SessionDeps } from '../../core/session/session.js';
import { describeSandbox } from '../../core/tools/commandRunner.js';
import type { ExternalTools } from '../../core/tools/external.js';
import { ToolRegistry } from '../../core/tools/registry.js';
import type { SqliteStore } from '../../db/store.js';
import { keelHome } from '../../keelHome.js';
import { sessionHooks } from '../../app/hookSettings.js';
import { createSandboxRunner } from '../../sandbox/runner.js';
import { CliError, type Writer } from '../io.js';

/** Who answers the gate's questions: the chat prompt sets it; without one, whatever asks is denied. */
export interface Approvals {
  approve?: Approver;
}

/** What a session of the command line runs on: the store, the real tools, the OS sandbox, Keel's data guarded. */
export function sessionDeps(store: SqliteStore, approvals: Approvals, external?: ExternalTools): SessionDeps {
  let rules;
  try {
    rules = permissionRules(keelHome());
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  return {
    store, tools: new ToolRegistry(), promptsDir: DEFAULT_PROMPTS_DIR, now: () => new Date(), external,
    commands: createSandboxRunner(sandboxOptions(keelHome())), hooks: sessionHooks(keelHome()),
    permissions: {
      approve: (request) => (approvals.approve ? approvals.approve(request) : Promise.resolve('deny')),
      protectedFolders: [keelHome()],
      rules,
    },
  };
}

/** Says so on stderr when commands cannot be sandboxed here (nothing when they can). */
export async function sandboxNotice(deps: SessionDeps, err: Writer): Promise<void> {
  const status = await deps.commands?.status();
  if (status && status.kind !== 'sandboxed') err.write(`keel: ${describeSandbox(status)}\n`);
}
