/**
 * The contract's hooks part (issue 26): what the Servers tab shows of a workspace's hooks, the one
 * call that approves a workspace's `.keel/settings.json`, and what a hook did for a tool call, as
 * its result shows it. Spread into CONTRACT (main/contract.ts); values only from leaf modules.
 */
import type { HookRun } from '../core/hooks/run.js';
import type { HookEventName, HookSource } from '../core/hooks/settings.js';
import { takes } from './shape.js';
import { PATH, TEXT as HASH } from './args.js';

/** One hook as written in a settings file. */
export interface HookEntryView {
  event: HookEventName;
  /** The matcher as written ('' matches every tool); PreToolUse and PostToolUse only. */
  matcher?: string;
  command: string;
  /** Seconds before it is stopped, when the file gives them. */
  timeoutS?: number;
}

/** A settings file with hooks (or with a problem that keeps them from loading). */
export interface HookFileView {
  source: HookSource;
  file: string;
  /** SHA-256 of its content: what approveHooksFile approves ('' when it cannot be read). */
  hash: string;
  /** Its hooks run: the person's own file always, a workspace's once approved as it is now. */
  approved: boolean;
  /** A workspace file whose hooks wait for the person's approval of it as it is now. */
  needsApproval: boolean;
  /** Why none of its hooks load (not JSON, a malformed hook, not a regular file…), naming the file. */
  problem?: string;
  hooks: HookEntryView[];
}

export interface HooksView {
  workspace: string;
  /** The files that have hooks or problems, the person's first (the order hooks run in). */
  files: HookFileView[];
  /** Where hooks can be written, the person's file first (for "no hooks" and for the person to find them). */
  places: string[];
}

/** One hook's run for a tool call, as the person is shown it (the model got only the result's text). */
export interface HookRunView extends Omit<HookRun, 'event'> {
  event: 'PreToolUse' | 'PostToolUse';
  /** This PreToolUse hook blocked the call (it exited 2): the tool never ran. */
  blocked?: true;
}

export const HOOKS_CONTRACT = {
  /** The hooks a session in the workspace runs or would run once approved, with each file's approval state. */
  hooks: takes(PATH).as<(workspace: string) => Promise<HooksView>>(),
  /** Approves the workspace's `.keel/settings.json` as shown (its hash); a file changed since is refused. */
  approveHooksFile: takes(PATH, HASH).as<(workspace: string, hash: string) => Promise<void>>(),
};
