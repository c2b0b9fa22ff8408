/**
 * How Keel's calls, turns and requests look to an editor over the Agent Client Protocol: pure
 * functions from the contract's views to ACP's `session/update` shapes, with no connection.
 */
import fs from 'node:fs';
import type { ContentBlock, PlanEntry, SessionUpdate, ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import type { RequestRow, SessionView, ToolView } from '../contract.js';
import type { PlanItem } from '../core/types.js';
import { targetPaths } from '../core/permissions/approval.js';
import { ToolRegistry } from '../core/tools/registry.js';

const tools = new ToolRegistry();

/** ACP's kind of each of Keel's tools (an editor picks its icon by it); MCP tools and the rest are `other`. */
const KINDS: Record<string, ToolKind> = {
  read: 'read', list: 'read', recall: 'read', glob: 'search', grep: 'search', search: 'search',
  edit: 'edit', multiedit: 'edit', write: 'edit', apply_patch: 'edit',
  bash: 'execute', bash_output: 'execute', kill_shell: 'execute',
  task: 'think', plan_write: 'think', plan_update: 'think', plan_submit: 'switch_mode',
};

export const toolKind = (name: string): ToolKind => KINDS[name] ?? 'other';

/** The files a call names (absolute), as the gate reads them from its arguments; [] for a tool that names none. */
export function callPaths(name: string, args: unknown, root: string): string[] {
  const tool = tools.get(name);
  if (!tool || typeof args !== 'object' || args === null) return [];
  return targetPaths(tool.access, args as Record<string, unknown>, root);
}

/** A call's one-line title: the tool and what it acts on (the command, the path, the pattern). */
export function callTitle(name: string, args: unknown): string {
  const a = (typeof args === 'object' && args !== null ? args : {}) as Record<string, unknown>;
  const what = [a.command, a.description, a.path, a.file_path, a.pattern, a.query, a.bash_id, a.shell_id, a.id]
    .find((v): v is string => typeof v === 'string' && v.length > 0);
  return what ? `${name} ${what.length > 120 ? `${what.slice(0, 119)}…` : what}` : name;
}

/** What the files a call will change hold now (undefined: no such file yet), read as it starts: the diff's old side. */
export function filesBefore(paths: readonly string[]): Map<string, string | undefined> {
  return new Map(paths.map((p) => [p, readText(p)]));
}

/** `tool_call` as a call starts. */
export function startedUpdate(id: string, name: string, args: unknown, root: string): SessionUpdate {
  return {
    sessionUpdate: 'tool_call', toolCallId: id, title: callTitle(name, args), kind: toolKind(name), status: 'in_progress',
    rawInput: args as Record<string, unknown>, locations: locations(callPaths(name, args, root)),
  };
}

/**
 * `tool_call_update` once the call has its result: the result as the model got it, and for a
 * file the call changed, its diff (the file before the call and as it is now). An error result
 * (`Error:` after the id line) is `failed`.
 */
export function endedUpdate(tool: ToolView, before?: Map<string, string | undefined>): SessionUpdate {
  const diffs: ToolCallContent[] = [];
  for (const [file, old] of before ?? []) {
    const now = readText(file);
    if (now !== old && now !== undefined) diffs.push({ type: 'diff', path: file, oldText: old ?? null, newText: now });
  }
  const failed = /^\[#[0-9a-f]+\]\nError:/.test(tool.text);
  return {
    sessionUpdate: 'tool_call_update', toolCallId: tool.id, status: failed ? 'failed' : 'completed',
    content: [...diffs, { type: 'content', content: text(tool.text) }], rawOutput: { text: tool.text },
  };
}

/** The plan as ACP's plan update: every entry, each with its status. */
export function planUpdate(plan: readonly PlanItem[]): SessionUpdate {
  const status = (s: PlanItem['status']): PlanEntry['status'] => (s === 'done' ? 'completed' : s === 'doing' ? 'in_progress' : 'pending');
  return { sessionUpdate: 'plan', entries: plan.map((p) => ({ content: p.text, priority: 'medium', status: status(p.status) })) };
}

/** A request's cache figures as Keel's `_meta` (an editor that knows nothing of them ignores the key). */
export function requestMeta(r: RequestRow): Record<string, unknown> {
  return {
    prompt_tokens: r.promptTokens, reused_tokens: r.reusedTokens, new_tokens: r.newTokens, output_tokens: r.outputTokens,
    ...(r.cause ? { cause: r.cause } : {}),
  };
}

/** `usage_update` after a request: the context used and its size, with the request's cache figures under `_meta.keel`. */
export function usageUpdate(r: RequestRow): SessionUpdate {
  return {
    sessionUpdate: 'usage_update', used: r.promptTokens + r.outputTokens, size: r.contextSize ?? 0,
    _meta: { keel: { request: requestMeta(r) } },
  };
}

/** A stored session as the updates an editor replays on `session/load`: each turn's words, then its reply. */
export function historyUpdates(view: SessionView): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  for (const turn of view.turns) {
    if (turn.status === 'undone') continue;
    if (turn.words) updates.push({ sessionUpdate: 'user_message_chunk', content: text(turn.words) });
    for (const part of turn.parts) {
      if (part.type === 'text') updates.push({ sessionUpdate: 'agent_message_chunk', content: text(part.text) });
      else {
        const { tool } = part;
        updates.push(startedUpdate(tool.id, tool.name, tool.args, view.summary.workspace));
        updates.push(endedUpdate(tool));
      }
    }
  }
  if (view.plan.length > 0) updates.push(planUpdate(view.plan));
  return updates;
}

export const text = (t: string): ContentBlock => ({ type: 'text', text: t });

const locations = (paths: readonly string[]): ToolCallLocation[] => paths.map((p) => ({ path: p }));

/** A file's text, or undefined when it is missing, not a file, or not UTF-8 text (a diff of it would mean nothing). */
function readText(file: string): string | undefined {
  try {
    const raw = fs.readFileSync(file);
    if (raw.includes(0)) return undefined;
    return raw.toString('utf8');
  } catch {
    return undefined;
  }
}
