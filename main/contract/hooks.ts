/**
 * The contract's hooks part (issues 26, 34): what the Servers tab shows of a workspace's settings
 * files (their hooks and permission rules), the one call that approves one workspace file, and what
 * a hook did for a tool call, as its result shows it. Spread into CONTRACT (main/contract.ts); values only from leaf modules.
 */
import type { HookRun } from '../core/hooks/run.js';
import type { HookEventName, HookSource } from '../core/hooks/settings.js';
import type { Decision } from '../core/permissions/types.js';
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

/** One permission rule as written in a settings file (Claude Code's "Bash(npm run test:*)"), and what Keel makes of it. */
export interface RuleEntryView {
  action: Decision;
  written: string;
  /** Keel's rules it stands for, in words ("bash npm run test", "deny read .env"); empty when ignored. */
  keel: string[];
  /** Why Keel does not use it (a tool Keel has not, a wildcard its rules cannot express). */
  ignored?: string;
}

/** A settings file with hooks or permission rules (or with a problem that keeps all of it from loading). */
export interface HookFileView {
  source: HookSource;
  file: string;
  /** SHA-256 of its content: what approveHooksFile approves ('' when it cannot be read). */
  hash: string;
  /** Its hooks run: the person's own file always, a workspace's once approved as it is now. */
  approved: boolean;
  /** A workspace file whose hooks and rules wait for the person's approval of it as it is now. */
  needsApproval: boolean;
  /** Why nothing of it loads (not JSON, a malformed hook or rule, not a regular file…), naming the file and the field. */
  problem?: string;
  hooks: HookEntryView[];
  /** Its permission rules, deny first, then ask, then allow. */
  rules: RuleEntryView[];
}

export interface HooksView {
  workspace: string;
  /** The files that have hooks, rules or problems, the person's first (the order hooks run in). */
  files: HookFileView[];
  /** Where hooks and rules can be written, the person's files first (for "no hooks" and for the person to find them). */
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
  /**
   * Approves one workspace settings file (its absolute path, as the view gives it) as shown (its
   * hash); a file changed since is refused. A workspace folder instead approves its one waiting file.
   */
  approveHooksFile: takes(PATH, HASH).as<(file: string, hash: string) => Promise<void>>(),
};
