/**
 * What the permission layer speaks: the approval asked of the person, their answer, and what the
 * gate needs of a session (its id and mode, never the Session itself, so no import circle runs
 * through the session). Types, and the one function that joins a session's rules.
 */
import type { Mode } from '../types.js';
import type { ApprovalAnswer, ApprovalDecision } from '../approvalAnswers.js';

export type Decision = 'allow' | 'ask' | 'deny';

/**
 * A person's rule: `tool` names a tool or `*` (or `mcp__SERVER` for every tool of that server);
 * `pattern` is a glob on the path (relative to the root) or a command prefix, and a rule with one never matches an MCP call.
 */
export interface Rule {
  action: Decision;
  tool: string;
  pattern?: string;
  /** The pattern is a whole command, not its first words (Claude Code's "Bash(npm run build)"; rules from its settings files). */
  exact?: boolean;
}

/** What the gate needs to know of the session a call belongs to. */
export interface GateSession {
  sessionId: number;
  mode: Mode;
}

/** What the person is asked to approve: exactly what will happen, before it does. */
export interface ApprovalRequest {
  sessionId: number;
  tool: string;
  args: unknown;
  /** Resolved paths a file tool would change. */
  paths: string[];
  command?: string;
  /** The diff of an edit (worked out without writing), the command line, or an MCP call's server, tool and arguments. */
  preview: string;
  reason: string;
  /** For an MCP tool: its server, and the tool's name as the server lists it. */
  server?: string;
  serverTool?: string;
}

export type { ApprovalAnswer, ApprovalDecision };
export type Approver = (request: ApprovalRequest) => Promise<ApprovalAnswer | ApprovalDecision>;

export interface PermissionOptions {
  approve?: Approver;
  rules?: Rule[];
  /**
   * More rules for a session in `root`, asked at every call: those of the settings files Keel reads
   * as Claude Code writes them (the person's own, and the workspace's once approved as they are now).
   */
  rulesAt?: (root: string) => Rule[];
  /** Folders never written without asking (Keel's own data folder). */
  protectedFolders?: string[];
}

/** Every rule that holds for a call in `root`: the person's, then those of the settings files. */
export function rulesFor(o: PermissionOptions, root: string): Rule[] {
  const more = o.rulesAt?.(root) ?? [];
  return more.length === 0 ? o.rules ?? [] : [...(o.rules ?? []), ...more];
}
