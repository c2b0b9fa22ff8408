/**
 * The one dependency builder for sessions: the app service, the CLI and the benchmarks all build
 * SessionDeps here, so a session runs on the same tools, OS sandbox, rules, hooks, checkpoints and guarded folders
 * wherever it is opened. The person's settings (`<dataFolder>/settings.json`) give the rules and the
 * sandbox's lists; a malformed rule throws an Error naming the file, and nothing is built. The rules
 * and hooks of the settings files written as Claude Code writes them (hookSettings.ts) are read at
 * each call and event, a workspace's only once the person approved the file as it is now.
 */
import path from 'node:path';
import { permissionRules, readSettings, sandboxOptions } from './settings.js';
import type { Approver } from '../core/permissions/approval.js';
import { DEFAULT_PROMPTS_DIR } from '../core/prompts/buildSystemPrompt.js';
import type { SessionDeps } from '../core/session/session.js';
import { describeSandbox, type CommandRunner } from '../core/tools/commandRunner.js';
import type { ExternalTools } from '../core/tools/external.js';
import { ToolRegistry } from '../core/tools/registry.js';
import { Shells } from '../core/tools/shells.js';
import { createSandboxRunner } from '../sandbox/runner.js';
import { sessionHooks, sessionRules } from './hookSettings.js';
import { checkpointsIn } from '../checkpoints/open.js';

export interface DepsOptions {
  store: SessionDeps['store'];
  /** Keel's data folder (keelHome()): its settings are read, and no command or tool may touch it. */
  dataFolder: string;
  /** Who answers the gate's questions; without one, whatever asks is denied. */
  approve?: Approver;
  /** The workspace's MCP tools, connected. */
  external?: ExternalTools;
  /** Default: the prompts/ folder shipped with Keel. */
  promptsDir?: string;
  /** Default: the real clock. */
  now?: () => Date;
  /** Default: the built-in tools. */
  tools?: ToolRegistry;
  /** Default: the OS sandbox with the person's settings. Tests replace it; benches keep it. */
  commands?: CommandRunner;
  /** An editor's buffers, by session (keel acp); default: the disk. */
  files?: SessionDeps['files'];
}

/** Where the background shells of every Keel process on this data folder keep their output and records. */
export const shellsFolder = (dataFolder: string) => path.join(dataFolder, 'shells');

const denyAll: Approver = async () => 'deny';

export function buildSessionDeps(o: DepsOptions): SessionDeps {
  const settings = readSettings(o.dataFolder);
  return {
    store: o.store, tools: o.tools ?? new ToolRegistry(), promptsDir: o.promptsDir ?? DEFAULT_PROMPTS_DIR,
    now: o.now ?? (() => new Date()), external: o.external, files: o.files,
    commands: o.commands ?? createSandboxRunner(sandboxOptions(o.dataFolder, settings)), hooks: sessionHooks(o.dataFolder),
    checkpoints: checkpointsIn(o.dataFolder), shells: Shells.open(shellsFolder(o.dataFolder)),
    permissions: { approve: o.approve ?? denyAll, protectedFolders: [o.dataFolder], rules: permissionRules(o.dataFolder, settings), rulesAt: sessionRules(o.dataFolder) },
  };
}

/** A command that was to run in the OS sandbox, where none can run: its message says why. */
export class SandboxMissingError extends Error {}

/** Throws SandboxMissingError (naming why) unless the deps' commands run in the OS sandbox. */
export async function requireSandbox(deps: SessionDeps, who: string): Promise<void> {
  const status = await deps.commands?.status();
  if (status?.kind !== 'sandboxed') {
    throw new SandboxMissingError(`${who} expects every command to run in the OS sandbox, and none runs here: ${status ? describeSandbox(status) : 'no command runner was built.'}`);
  }
}

/**
 * The runner, each command checked first: one that would run without the sandbox is not run, and
 * the reason is pushed to `missing` (the bash tool only answers "could not prepare"; a bench that
 * measures the app fails on `missing`, never measuring something else quietly).
 */
export function expectSandbox(runner: CommandRunner, missing: string[]): CommandRunner {
  return {
    status: () => runner.status(),
    deniedReads: runner.deniedReads,
    home: runner.home,
    async prepare(command, p) {
      const status = await runner.status();
      if (status.kind !== 'sandboxed') {
        const why = `\`${command}\` was to run without the OS sandbox (${status.reason})`;
        missing.push(why);
        throw new SandboxMissingError(why);
      }
      return runner.prepare(command, p);
    },
  };
}
