import { parsePatch } from 'diff';
import { diffHunks } from '../hygiene/diff.js';
import type { Session } from '../session/session.js';
import type { RawOutput, Tool, ToolContext } from '../tools/types.js';
import { NO_RUNNER, type CommandAccess } from '../tools/commandRunner.js';
import { resolveInWorkspace, resolveReal } from '../workspace/paths.js';
import { decide, type GateVerdict, type Rule } from './gate.js';

/** What the person is asked to approve: exactly what will happen, before it does. */
export interface ApprovalRequest {
  sessionId: number;
  tool: string;
  args: unknown;
  /** Resolved paths a file tool would change. */
  paths: string[];
  command?: string;
  /** The diff of an edit (worked out without writing), or the command line. */
  preview: string;
  reason: string;
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

/** The gate's answer for one call: refused (the error the model gets), or it may run with this access. */
export type Passage = { kind: 'refused'; output: RawOutput } | { kind: 'pass'; access: CommandAccess };

/**
 * Runs a writer through the gate: allowed, denied, or asked of the person with a preview. A
 * command runs with the access the gate gave it (read-only, or workspace-write in auto mode), or
 * git-write once the person approved it.
 */
export async function passGate(
  session: Session, tool: Tool, args: Record<string, unknown>, ctx: ToolContext, o: PermissionOptions, grants: Set<string>,
): Promise<Passage> {
  const paths = targetPaths(tool.name, args, ctx.root);
  const command = tool.name === 'bash' && typeof args.command === 'string' ? args.command : undefined;
  const runner = ctx.commands ?? NO_RUNNER;
  const verdict: GateVerdict = decide({
    tool: tool.name, paths, command, mode: session.mode, root: ctx.root, rules: o.rules ?? [], protectedFolders: o.protectedFolders ?? [],
    sandboxed: (await runner.status()).kind === 'sandboxed', deniedReads: runner.deniedReads, home: runner.home, realpath: realOrSame,
  });
  const refuse = (message: string): Passage => ({ kind: 'refused', output: { kind: 'error', message } });
  const approved: Passage = { kind: 'pass', access: 'git-write' };
  const what = command !== undefined ? `the command ${JSON.stringify(command)}` : `${tool.name} of ${paths.join(', ') || 'the files named'}`;
  if (verdict.decision === 'allow') return { kind: 'pass', access: verdict.access ?? 'read-only' };
  if (verdict.decision === 'deny') return refuse(`Error: denied: ${what}: ${verdict.reason}. Nothing was changed.`);
  const key = `${tool.name}\u0000${command ?? paths.join('\u0000')}`;
  if (grants.has(key)) return approved;
  if (!o.approve) return refuse(`Error: ${what} needs the person's approval (${verdict.reason}), and no one can approve here. Nothing was changed.`);
  const preview = command ?? (await previewChange(tool, args, ctx));
  const decision = await o.approve({ sessionId: session.id, tool: tool.name, args, paths, command, preview, reason: verdict.reason });
  const { answer, said } = readDecision(decision);
  if (answer === 'deny') return refuse(`Error: the person denied ${what}. Nothing was changed.${said}`);
  if (answer === 'allow-session') grants.add(key);
  return approved;
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
