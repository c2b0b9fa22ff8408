/**
 * Codex's typed items for Keel's calls (`codex exec --json`: command_execution, file_change,
 * mcp_tool_call; shapes in jsonEvents.ts), so a script written for Codex reads a command's exit code,
 * an edit's files and an MCP call without knowing Keel's tools. They accompany Keel's own
 * tool_call and tool_result items, which stay as they were.
 */
import fs from 'node:fs';
import type { CallResult } from '../../core/calls/calls.js';
import { contextConfig } from '../../core/config.js';
import { formatId } from '../../core/hygiene/ids.js';
import { targetPaths } from '../../core/permissions/approval.js';
import { applyPatchTool } from '../../core/tools/applyPatch.js';
import { editTool } from '../../core/tools/edit.js';
import { parseExternalName } from '../../core/tools/external.js';
import { multieditTool } from '../../core/tools/multiedit.js';
import type { Tool } from '../../core/tools/types.js';
import { writeTool } from '../../core/tools/write.js';
import type { Item, StartedItem } from './jsonEventSchema.js';

/** The tools whose result is a file change, with the access that names their files. */
const FILE_TOOLS: Record<string, Pick<Tool, 'access'>> = { write: writeTool, edit: editTool, multiedit: multieditTool, apply_patch: applyPatchTool };

/** An MCP tool's server and its name there, for a name of the session's list; undefined for Keel's own tools. */
export type McpToolOf = (name: string) => { server: string; tool: string } | undefined;

/** A call as the loop tells it. */
interface Call {
  name: string;
  args: unknown;
  number: number;
}

export class CodexItems {
  /** For each file call running, the files it names and whether each existed as it started (an add or an update). */
  private readonly named = new Map<number, Map<string, boolean>>();

  /**
   * `root`: the session's workspace, as its tools resolve paths against it; `mcpTool`: an MCP tool
   * of the session's list as its server names it (Conversation.mcpTool).
   */
  constructor(private readonly root: string, private readonly mcpTool: McpToolOf = parseExternalName) {}

  /** A call starts: Codex's item in progress, where Codex has one that starts (a command, an MCP call). */
  started(call: Call): StartedItem | undefined {
    const args = record(call.args);
    const id = formatId(call.number);
    const files = FILE_TOOLS[call.name];
    if (files) this.named.set(call.number, new Map(safePaths(files, args, this.root).map((p) => [p, fs.existsSync(p)])));
    if (isForegroundCommand(call.name, args)) {
      return { type: 'command_execution', id, command: String(args.command), aggregated_output: '', exit_code: null, status: 'in_progress' };
    }
    const mcp = this.mcpTool(call.name);
    if (mcp) return { type: 'mcp_tool_call', id, ...mcp, arguments: call.args ?? null, result: null, error: null, status: 'in_progress' };
    return undefined;
  }

  /** The call has its result (`declined`: it needed an approval that was not given): Codex's item for it, if it has one. */
  completed(call: Call, result: CallResult, declined: boolean): Item | undefined {
    const args = record(call.args);
    const id = formatId(call.number);
    const failed = declined || result.kind === 'error';
    const output = withoutBracket(result.text, id);
    const named = this.named.get(call.number);
    this.named.delete(call.number);
    if (isForegroundCommand(call.name, args)) {
      const exit = failed ? null : exitCode(output);
      const status = declined ? 'declined' : exit === 0 ? 'completed' : 'failed';
      return { type: 'command_execution', id, command: String(args.command), aggregated_output: output, exit_code: exit, status };
    }
    if (FILE_TOOLS[call.name]) {
      // What it wrote (a deleted file's hash is ''); a failed change names the files it would have changed.
      const changes = failed || !result.wrote
        ? [...(named ?? [])].map(([path, existed]) => ({ path, kind: existed ? 'update' as const : 'add' as const }))
        : result.wrote.map((w) => ({ path: w.absPath, kind: w.hash === '' ? 'delete' as const : named?.get(w.absPath) ? 'update' as const : 'add' as const }));
      return { type: 'file_change', id, changes, status: failed ? 'failed' : 'completed' };
    }
    const mcp = this.mcpTool(call.name);
    if (mcp) {
      return {
        type: 'mcp_tool_call', id, ...mcp, arguments: call.args ?? null,
        result: failed ? null : { content: [{ type: 'text', text: output }], structured_content: null },
        error: failed ? { message: output } : null, status: failed ? 'failed' : 'completed',
      };
    }
    return undefined;
  }
}

/** A bash call the model waits on (one in the background is told by the shell events instead). */
function isForegroundCommand(name: string, args: Record<string, unknown>): boolean {
  return name === 'bash' && typeof args.command === 'string' && args.run_in_background !== true;
}

function record(args: unknown): Record<string, unknown> {
  return typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

/** The files a call names; a path its tool will refuse names none. */
function safePaths(tool: Pick<Tool, 'access'>, args: Record<string, unknown>, root: string): string[] {
  try {
    return targetPaths(tool.access, args, root);
  } catch {
    return [];
  }
}

/** The result as the model got it, less Keel's `[#0007]` bracket (the item's `id` carries it). */
function withoutBracket(text: string, id: string): string {
  const bracket = `[${id}]`;
  if (!text.startsWith(bracket)) return text;
  const rest = text.slice(bracket.length);
  return rest.startsWith('\n') || rest.startsWith(' ') ? rest.slice(1) : rest;
}

/** A line of one of loop.json's texts, whatever its `{{value}}` is. */
function lineOf(template: string): RegExp {
  const [before, after] = template.split(/\{\{\w+\}\}/);
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escape(before)}(.*)${escape(after ?? '')}$`);
}

const texts = contextConfig.texts;
const EXIT_LINE = lineOf(texts.exit_code);
/** Lines bash adds after its status line: the sandbox's refusals and git checks (core/tools/bash.ts). */
const AFTER_STATUS = [lineOf(texts.sandbox_refused), /^\[git check: .*\]$/];
/** Status lines of a command that did not exit by itself: it timed out, ran past the output limit, or was killed. */
const STOPPED = [lineOf(texts.timed_out), lineOf(texts.output_stopped), /^\[killed by \w+\]$/];

/**
 * A finished command's exit code from its result's status line, which bash writes only for a
 * non-zero code (`[exit code N]`): none is 0; a command stopped before it exited has none (null).
 */
export function exitCode(output: string): number | null {
  const lines = output.split('\n');
  let last = lines.length - 1;
  while (last >= 0 && AFTER_STATUS.some((r) => r.test(lines[last]))) last--;
  const status = lines[last] ?? '';
  const code = EXIT_LINE.exec(status);
  if (code && /^-?\d+$/.test(code[1])) return Number(code[1]);
  return STOPPED.some((r) => r.test(status)) ? null : 0;
}
