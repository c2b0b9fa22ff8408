import { parsePatch } from 'diff';
import { diffHunks } from '../hygiene/diff.js';
import type { ExternalToolInfo } from '../tools/external.js';
import type { Session } from '../session/session.js';
import type { RawOutput, Tool, ToolContext } from '../tools/types.js';
import { resolveInWorkspace } from '../workspace/paths.js';
import { decide, type GateVerdict, type Rule } from './gate.js';

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

export type ApprovalAnswer = 'allow' | 'allow-session' | 'deny';
/** An answer, and what the person told the model with a denial ("use pnpm"). */
export interface ApprovalDecision {
  answer: ApprovalAnswer;
  reason?: string;
}
export type Approver = (request: ApprovalRequest) => Promise<ApprovalAnswer | ApprovalDecision>;

/** An approver's answer, and what the person said with it as a sentence for the model ('' for nothing). */
export function readDecision(decision: ApprovalAnswer | ApprovalDecision): { answer: ApprovalAnswer; said: string } {
  const { answer, reason } = typeof decision === 'string' ? { answer: decision, reason: undefined } : decision;
  return { answer, said: reason?.trim() ? ` They said: ${reason.trim()}` : '' };
}

export interface PermissionOptions {
  approve?: Approver;
  rules?: Rule[];
  /** Folders never written without asking (Keel's own data folder). */
  protectedFolders?: string[];
}

/** The files a writer names (unresolvable ones are left to the tool, which refuses them). */
export function targetPaths(tool: string, args: Record<string, unknown>, root: string): string[] {
  const names = tool === 'apply_patch' && typeof args.patch === 'string'
    ? safe(() => parsePatch(args.patch as string).flatMap((p) => [p.oldFileName, p.newFileName]), [])
      .filter((n): n is string => !!n && n !== '/dev/null')
      .map((n) => n.replace(/^[ab]\//, ''))
    : typeof args.path === 'string' ? [args.path] : [];
  return [...new Set(names.flatMap((n) => safe(() => [resolveInWorkspace(root, n)], [])))];
}

function safe<T>(f: () => T, fallback: T): T {
  try {
    return f();
  } catch {
    return fallback;
  }
}

/**
 * Runs a writer through the gate: allowed, denied, or asked of the person with a preview.
 * Returns undefined when the call may run, or the refusal the model gets.
 */
export async function passGate(
  session: Session, tool: Tool, args: Record<string, unknown>, ctx: ToolContext, o: PermissionOptions, grants: Set<string>,
): Promise<RawOutput | undefined> {
  const paths = targetPaths(tool.name, args, ctx.root);
  const command = tool.name === 'bash' && typeof args.command === 'string' ? args.command : undefined;
  const verdict: GateVerdict = decide({
    tool: tool.name, paths, command, mode: session.mode, root: ctx.root, rules: o.rules ?? [], protectedFolders: o.protectedFolders ?? [],
  });
  const what = command !== undefined ? `the command ${JSON.stringify(command)}` : `${tool.name} of ${paths.join(', ') || 'the files named'}`;
  const key = `${tool.name}\u0000${command ?? paths.join('\u0000')}`;
  return settle(verdict, what, key, grants, o, async () => ({
    sessionId: session.id, tool: tool.name, args, paths, command, preview: command ?? (await previewChange(tool, args, ctx)), reason: verdict.reason,
  }));
}

/**
 * Runs an MCP call through the gate. The approval shows the server, the tool and the arguments;
 * "always for this session" covers that tool with any arguments.
 */
export async function passExternalGate(
  session: Session, name: string, info: ExternalToolInfo, args: Record<string, unknown>, o: PermissionOptions, grants: Set<string>,
): Promise<RawOutput | undefined> {
  const verdict = decide({
    tool: name, paths: [], mode: session.mode, root: session.root, rules: o.rules ?? [], protectedFolders: o.protectedFolders ?? [],
    mcp: { server: info.server, readOnly: info.readOnly, trusted: info.trusted },
  });
  const preview = `MCP server: ${info.server}\nTool: ${info.tool}\nArguments: ${JSON.stringify(args, null, 2)}`;
  return settle(verdict, `the MCP call ${name}`, `${name}\u0000`, grants, o, async () => ({
    sessionId: session.id, tool: name, args, paths: [], preview, reason: verdict.reason, server: info.server, serverTool: info.tool,
  }));
}

/** A verdict carried out: allowed, denied, granted earlier for the session, or asked of the person. */
async function settle(
  verdict: GateVerdict, what: string, key: string, grants: Set<string>, o: PermissionOptions, request: () => Promise<ApprovalRequest>,
): Promise<RawOutput | undefined> {
  if (verdict.decision === 'allow') return undefined;
  if (verdict.decision === 'deny') return { kind: 'error', message: `Error: denied: ${what}: ${verdict.reason}. Nothing was changed.` };
  if (grants.has(key)) return undefined;
  if (!o.approve) return { kind: 'error', message: `Error: ${what} needs the person's approval (${verdict.reason}), and no one can approve here. Nothing was changed.` };
  const { answer, said } = readDecision(await o.approve(await request()));
  if (answer === 'deny') return { kind: 'error', message: `Error: the person denied ${what}. Nothing was changed.${said}` };
  if (answer === 'allow-session') grants.add(key);
  return undefined;
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
