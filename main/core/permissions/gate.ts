import os from 'node:os';
import path from 'node:path';
import picomatch from 'picomatch';
import { mcpConfig } from '../config.js';
import type { Mode } from '../session/types.js';
import { classifyCommand, splitCommands } from './command.js';

export type Decision = 'allow' | 'ask' | 'deny';

/**
 * A person's rule: `tool` names a tool or `*` (or `mcp__SERVER` for every tool of that server);
 * `pattern` is a glob on the path (relative to the root) or a command prefix, and a rule with one never matches an MCP call.
 */
export interface Rule {
  action: Decision;
  tool: string;
  pattern?: string;
}

/** The tools that change files or run commands: every one goes through the gate. */
export const WRITERS = new Set(['write', 'edit', 'multiedit', 'apply_patch', 'bash']);

export interface GateInput {
  tool: string;
  /** The absolute paths a file tool would change (resolved), or the command line for bash. */
  paths: string[];
  command?: string;
  mode: Mode;
  root: string;
  rules: readonly Rule[];
  /** Folders never written without asking (Keel's own data folder). */
  protectedFolders: readonly string[];
  /** Set for a tool of an MCP server: its server, and whether a hint may let it pass. */
  mcp?: { server: string; readOnly: boolean; trusted: boolean };
}

export interface GateVerdict {
  decision: Decision;
  reason: string;
}

/**
 * The one permission gate. Rules are checked deny → ask → allow, first match wins, and a deny
 * holds in every mode; plan mode denies every change whatever any other rule says; read-only
 * commands pass; then the mode decides. A command that cannot be judged, or reaches the network, asks. Nothing the model
 * reads can reach this function: its inputs are the call, the mode and the person's rules.
 */
export function decide(input: GateInput): GateVerdict {
  if (input.mcp) return decideMcp(input, input.mcp);
  if (!WRITERS.has(input.tool)) return { decision: 'allow', reason: 'reads only' };
  const kind = input.command !== undefined ? classifyCommand(input.command) : undefined;
  const rule = (action: Decision) => input.rules.find((r) => r.action === action && matches(r, input));
  const denied = rule('deny');
  if (denied) return { decision: 'deny', reason: `rule: deny ${describe(denied)}` };
  if (input.mode === 'plan' && kind !== 'read-only') {
    return { decision: 'deny', reason: 'plan mode makes no changes and runs no commands with effects' };
  }
  const asked = rule('ask');
  if (asked) return { decision: 'ask', reason: `rule: ask ${describe(asked)}` };
  if (kind === 'read-only') return { decision: 'allow', reason: 'a read-only command' };
  if (kind === 'network') return { decision: 'ask', reason: 'the command reaches the network' };
  if (kind === 'complex') return { decision: 'ask', reason: 'the command is too complex to judge' };
  const guarded = [...input.paths, ...commandPaths(input)].find((p) => isGuarded(p, input));
  if (guarded) return { decision: 'ask', reason: `${guarded} is in .git or Keel's own data` };
  const allowed = rule('allow');
  if (allowed) return { decision: 'allow', reason: `rule: allow ${describe(allowed)}` };
  if (input.mode === 'auto') return { decision: 'allow', reason: 'auto mode' };
  if (input.mode === 'accept-edits' && input.tool !== 'bash') return { decision: 'allow', reason: 'accept-edits mode' };
  return { decision: 'ask', reason: `${input.mode} mode asks before ${input.tool === 'bash' ? 'commands' : 'edits'}` };
}

/**
 * An MCP tool can do anything its server can, so it is treated as a change unless the server
 * marks it `readOnlyHint` and the person trusts that server (a hint is the server's claim, worth
 * what the server is). Rules first, deny → ask → allow; plan mode runs only read-only tools; auto
 * mode allows; otherwise the person is asked.
 */
function decideMcp(input: GateInput, mcp: NonNullable<GateInput['mcp']>): GateVerdict {
  const rule = (action: Decision) => input.rules.find((r) => r.action === action && matchesMcp(r, input.tool, mcp.server));
  const denied = rule('deny');
  if (denied) return { decision: 'deny', reason: `rule: deny ${describe(denied)}` };
  if (input.mode === 'plan' && !mcp.readOnly) {
    return { decision: 'deny', reason: `plan mode runs only MCP tools that ${mcp.server} marks read-only` };
  }
  const asked = rule('ask');
  if (asked) return { decision: 'ask', reason: `rule: ask ${describe(asked)}` };
  const allowed = rule('allow');
  if (allowed) return { decision: 'allow', reason: `rule: allow ${describe(allowed)}` };
  if (mcp.readOnly && mcp.trusted) return { decision: 'allow', reason: `a read-only tool of ${mcp.server}, a server the person trusts` };
  if (input.mode === 'auto') return { decision: 'allow', reason: 'auto mode' };
  const why = mcp.readOnly ? `${mcp.server} marks it read-only, but the person has not trusted that server` : `${mcp.server} does not mark it read-only`;
  return { decision: 'ask', reason: `${input.mode} mode asks before MCP tools: ${why}` };
}

function matchesMcp(rule: Rule, tool: string, server: string): boolean {
  if (rule.pattern) return false;
  return rule.tool === '*' || rule.tool === tool || rule.tool === `${mcpConfig.prefix.value}${server}`;
}

const describe = (r: Rule) => `${r.tool}${r.pattern ? ` ${r.pattern}` : ''}`;

function matches(rule: Rule, input: GateInput): boolean {
  if (rule.tool !== '*' && rule.tool !== input.tool) return false;
  if (!rule.pattern) return true;
  if (input.command !== undefined) return input.command.trim().startsWith(rule.pattern);
  const glob = picomatch(rule.pattern, { dot: true });
  return input.paths.some((p) => glob(path.relative(input.root, p)) || glob(p));
}

/** The words of a command that look like paths, resolved against the root (`~` as the home folder). */
function commandPaths(input: GateInput): string[] {
  if (input.command === undefined) return [];
  const words = (splitCommands(input.command) ?? []).flatMap((w) => w.slice(1));
  return words
    .filter((w) => w.includes('/') || w.includes('.git') || w.startsWith('~'))
    .map((w) => path.resolve(input.root, w.replace(/^~(?=\/|$)/, os.homedir())));
}

function isGuarded(abs: string, input: GateInput): boolean {
  const rel = path.relative(input.root, abs).split(path.sep);
  if (rel.includes('.git')) return true;
  return input.protectedFolders.some((folder) => abs === folder || abs.startsWith(folder + path.sep));
}
