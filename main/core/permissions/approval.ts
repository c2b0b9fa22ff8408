import { parsePatch } from 'diff';
import { diffHunks } from '../hygiene/diff.js';
import type { ExternalToolInfo } from '../tools/external.js';
import type { Tool, ToolContext } from '../tools/types.js';
import type { RawOutput } from '../types.js';
import { NO_RUNNER, type CommandAccess } from '../tools/commandRunner.js';
import { resolveInWorkspace, resolveReal } from '../workspace/paths.js';
import { externalAccess, type ToolAccess } from '../tools/access.js';
import { linkTargetsBelow, resolveForCommand } from './commandPaths.js';
import { parseLine } from './command.js';
import { decide, denyingRule, describeRule, type GateVerdict } from './gate.js';
import { rulesFor, type ApprovalRequest, type GateSession, type PermissionOptions, type Rule } from './types.js';

export type { ApprovalAnswer, ApprovalDecision, ApprovalRequest, Approver, GateSession, PermissionOptions } from './types.js';
import { readDecision } from '../approvalAnswers.js';

/** The files a call names, by the arguments its tool declares (unresolvable ones are left to the tool, which refuses them). */
export function targetPaths(access: ToolAccess, args: Record<string, unknown>, root: string): string[] {
  const names = access.paths.flatMap(({ arg, kind }) => {
    const value = args[arg];
    if (typeof value !== 'string') return [];
    if (kind === 'path') return [value];
    return safe(() => parsePatch(value).flatMap((p) => [p.oldFileName, p.newFileName]), [])
      .filter((n): n is string => !!n && n !== '/dev/null')
      .map((n) => n.replace(/^[ab]\//, ''));
  });
  return [...new Set(names.flatMap((n) => safe(() => [resolveInWorkspace(root, n)], [])))];
}

function safe<T>(f: () => T, fallback: T): T {
  try {
    return f();
  } catch {
    return fallback;
  }
}

/** The gate's answer for one call: refused (the error the model gets), or it may run with this access. */
export type Passage = { kind: 'refused'; output: RawOutput } | { kind: 'pass'; access: CommandAccess };

/**
 * Runs a writer through the gate: allowed, denied, or asked of the person with a preview. A
 * command runs with the access the gate gave it (read-only, or workspace-write in auto mode), or
 * git-write once the person approved it.
 */
export async function passGate(
  session: GateSession, tool: Tool, args: Record<string, unknown>, ctx: ToolContext, o: PermissionOptions, grants: Set<string>,
): Promise<Passage> {
  const paths = targetPaths(tool.access, args, ctx.root);
  const given = tool.access.command !== undefined ? args[tool.access.command] : undefined;
  const command = typeof given === 'string' ? given : undefined;
  const runner = ctx.commands ?? NO_RUNNER;
  const sandboxed = (await runner.status()).kind === 'sandboxed';
  const verdict: GateVerdict = decide({
    tool: tool.name, access: tool.access, paths, command: command !== undefined ? parseLine(command) : undefined, mode: session.mode, root: ctx.root,
    rules: rulesFor(o, ctx.root), protectedFolders: o.protectedFolders ?? [], sandboxed, deniedReads: runner.deniedReads, home: runner.home, realpath: realOrSame,
    resolve: resolveForCommand, linksBelow: sandboxed ? undefined : (folder) => linkTargetsBelow(folder, ctx.root),
  });
  const what = command !== undefined ? `the command ${JSON.stringify(command)}` : `${tool.name} of ${paths.join(', ') || 'the files named'}`;
  const key = `${tool.name}\u0000${command ?? paths.join('\u0000')}`;
  return settle(verdict, what, key, grants, o, async () => ({
    sessionId: session.sessionId, tool: tool.name, args, paths, command, preview: command ?? (await previewChange(tool, args, ctx)), reason: verdict.reason,
  }));
}

/**
 * Runs an MCP call through the gate. The approval shows the server, the tool and the arguments;
 * "always for this session" covers that tool with any arguments.
 */
export async function passExternalGate(
  session: GateSession & { root: string }, name: string, info: ExternalToolInfo, args: Record<string, unknown>, o: PermissionOptions, grants: Set<string>,
): Promise<Passage> {
  const verdict = decide({
    tool: name, access: externalAccess({ readOnly: info.readOnly, openWorld: info.openWorld }, info.trusted), paths: [], mode: session.mode, root: session.root, rules: rulesFor(o, session.root), protectedFolders: o.protectedFolders ?? [],
    sandboxed: true, mcp: { server: info.server, readOnly: info.readOnly, trusted: info.trusted },
  });
  const preview = `MCP server: ${info.server}\nTool: ${info.tool}\nArguments: ${JSON.stringify(args, null, 2)}`;
  return settle(verdict, `the MCP call ${name}`, `${name}\u0000`, grants, o, async () => ({
    sessionId: session.sessionId, tool: name, args, paths: [], preview, reason: verdict.reason, server: info.server, serverTool: info.tool,
  }));
}

/**
 * A verdict carried out: allowed (with the access the verdict gives), denied, granted earlier for the
 * session, or asked of the person. What a rule, the mode or the person allowed runs with workspace-write access.
 */
async function settle(
  verdict: GateVerdict, what: string, key: string, grants: Set<string>, o: PermissionOptions, request: () => Promise<ApprovalRequest>,
): Promise<Passage> {
  const refuse = (message: string): Passage => ({ kind: 'refused', output: { kind: 'error', message } });
  const approved: Passage = { kind: 'pass', access: 'git-write' };
  if (verdict.decision === 'allow') return { kind: 'pass', access: verdict.access ?? 'read-only' };
  if (verdict.decision === 'deny') return refuse(`Error: denied: ${what}: ${verdict.reason}. Nothing was changed.`);
  if (grants.has(key)) return approved;
  if (!o.approve) return refuse(`Error: ${what} needs the person's approval (${verdict.reason}), and no one can approve here. Nothing was changed.`);
  const { answer, said } = readDecision(await o.approve(await request()));
  if (answer === 'deny') return refuse(`Error: the person denied ${what}. Nothing was changed.${said}`);
  if (answer === 'allow-session') grants.add(key);
  return approved;
}

/** The files the person's deny rules keep from a reading tool, or undefined when no rule names a file. */
export function hiddenFrom(rules: readonly Rule[], tool: string, root: string): ((abs: string) => boolean) | undefined {
  if (!rules.some((r) => r.action === 'deny' && r.pattern !== undefined)) return undefined;
  return (abs) => denyingRule(rules, tool, root, abs, realOrSame(abs)) !== undefined;
}

/**
 * `recall` of a stored result that shows a file a deny rule now keeps from the tool that read it (or
 * from recall): the refusal the model gets, or undefined.
 */
export function recallRefusal(rules: readonly Rule[], root: string, id: string, shown: { tool: string; path?: string }): RawOutput | undefined {
  if (shown.path === undefined) return undefined;
  const rule = denyingRule(rules, shown.tool, root, shown.path, realOrSame(shown.path)) ?? denyingRule(rules, 'recall', root, shown.path, realOrSame(shown.path));
  return rule && { kind: 'error', message: `Error: denied: recall of ${id}, which shows ${shown.path}: rule: ${describeRule(rule)}. Nothing was shown.` };
}

/** A real path for the gate's guards; a path that cannot be resolved (a link loop) is compared as given. */
function realOrSame(abs: string): string {
  try {
    return resolveReal(abs);
  } catch {
    return abs;
  }
}

/** The diff a file tool would make, worked out with nothing written. */
async function previewChange(tool: Tool, args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  try {
    const raw = await tool.run(args, { ...ctx, dryRun: true });
    if (raw.kind !== 'change') return raw.kind === 'error' ? raw.message : '';
    return raw.files.map((f) => `${f.absPath} (${f.action})\n${f.action === 'modified' || f.action === 'created' ? diffHunks(f.before, f.after) : ''}`.trimEnd()).join('\n');
  } catch (err) {
    return (err as Error).message;
  }
}
