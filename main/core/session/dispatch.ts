import { validateArgs } from '../validate.js';
import { fill, mcpConfig } from '../config.js';
import { parseExternalName, unavailable } from '../tools/external.js';
import type { Tool, ToolContext } from '../tools/types.js';
import { ToolError, type RawOutput, type ToolSpec } from '../types.js';
import { hiddenFrom, passExternalGate, passGate, recallRefusal } from '../permissions/approval.js';
import { parseId } from '../hygiene/ids.js';
import type { Hooks } from '../hooks/hooks.js';
import type { HookRun } from '../hooks/run.js';
import type { SessionDeps } from './deps.js';
import type { SessionRecord } from './record.js';

/**
 * Tool dispatch: a call the model made, as far as its raw output — never inserted here. Each call
 * goes, in order: resolve (a tool of the session's list: built-in or an MCP server's), validate
 * (its arguments against the tool's schema), gate (the person's rules, the mode, an approval), run.
 * A step that must see each call before it runs (with its arguments known good, before the gate)
 * belongs in `run` between validate and `gated`; a step on the result before it is inserted
 * belongs in Session.callTool, between `run` and insertion.
 */
export class Dispatch {
  /** "Always for this session" approvals: tool and target. */
  private readonly grants = new Set<string>();

  constructor(
    private readonly deps: SessionDeps,
    private readonly record: SessionRecord,
    private readonly knownHash: (absPath: string) => string | undefined,
    private readonly hooks: Hooks,
    /** A command the gate let write, or an MCP tool, is about to run: what it changes is found by a walk. */
    private readonly beforeWrite: () => void = () => {},
  ) {}

  /** The session's tool list (spec §10.4): only these can be called. */
  private get tools(): readonly ToolSpec[] {
    return this.record.row.tools ?? [];
  }

  /**
   * A call's raw output: the tool's answer, a refusal, or the error that says why it did not run.
   * PreToolUse hooks see every call whose arguments are good, before the gate asks anyone; their
   * runs are added to `runs`.
   */
  async run(name: string, args: unknown, signal?: AbortSignal, runs: HookRun[] = []): Promise<RawOutput> {
    const listed = this.tools.some((t) => t.name === name);
    const external = listed ? parseExternalName(name) : undefined;
    if (external) {
      if (!args || typeof args !== 'object' || Array.isArray(args)) return { kind: 'error', message: fill(mcpConfig.texts.not_object, { name }) };
      return (await this.blocked(name, args, runs, signal)) ?? this.runExternal(name, external.server, args, signal);
    }
    const tool = listed ? this.deps.tools.get(name) : undefined;
    if (!tool) {
      return { kind: 'error', message: `Error: there is no tool "${name}". The tools are: ${this.tools.map((t) => t.name).join(', ')}.` };
    }
    const problem = validateArgs(tool.parameters, args);
    if (problem) return { kind: 'error', message: `Error: invalid arguments for ${name}: ${problem}.` };
    return (await this.blocked(name, args, runs, signal)) ?? this.gated(tool, args as Record<string, unknown>, signal);
  }

  /** The PreToolUse hooks' answer: the error a blocked call gets, or undefined to go on. */
  private async blocked(name: string, args: unknown, runs: HookRun[], signal?: AbortSignal): Promise<RawOutput | undefined> {
    if (this.hooks.empty) return undefined;
    const pre = await this.hooks.preToolUse(name, args, signal);
    runs.push(...pre.runs);
    return pre.text === undefined ? undefined : { kind: 'error', message: pre.text };
  }

  /** A built-in tool with valid arguments: the gate, then the tool with the access it granted. */
  private async gated(tool: Tool, args: Record<string, unknown>, signal?: AbortSignal): Promise<RawOutput> {
    const row = this.record.row;
    const rules = this.deps.permissions?.rules ?? [];
    const ctx = { ...this.toolContext(signal), hidden: hiddenFrom(rules, tool.name, row.root) };
    try {
      const gate = await passGate({ sessionId: row.id, mode: row.mode }, tool, args, ctx, this.deps.permissions ?? {}, this.grants);
      if (gate.kind === 'refused') return gate.output;
      const recalled = tool.name === 'recall' ? this.recalled(String(args.id)) : undefined;
      const refused = recalled && recallRefusal(rules, row.root, String(args.id), recalled);
      if (refused) return refused;
      if (tool.name === 'bash' && gate.access !== undefined && gate.access !== 'read-only') this.beforeWrite();
      return await tool.run(args, { ...ctx, access: gate.access });
    } catch (err) {
      if (err instanceof ToolError) return { kind: 'error', message: err.message };
      return { kind: 'error', message: `Error: ${tool.name} failed: ${(err as Error)?.message ?? String(err)}` };
    }
  }

  /** The tool and file of the stored result a recall names, when there is one. */
  private recalled(id: string): { tool: string; path?: string } | undefined {
    const { number } = parseId(id);
    const result = number === undefined ? undefined : this.deps.store.getResult(this.record.row.id, number);
    return result && { tool: result.tool, path: result.pathResolved };
  }

  /**
   * An MCP tool of the session's list: its server answers it, after the gate; a server that is not
   * there answers the unavailable text without asking anyone (there is nothing to approve).
   */
  private async runExternal(name: string, server: string, args: object, signal?: AbortSignal): Promise<RawOutput> {
    const external = this.deps.external;
    if (!external) return unavailable(name, server, 'not configured here');
    const info = external.describe(name);
    if ('kind' in info) return info;
    const row = this.record.row;
    const gate = await passExternalGate({ sessionId: row.id, mode: row.mode, root: row.root }, name, info, args as Record<string, unknown>, this.deps.permissions ?? {}, this.grants);
    if (gate.kind === 'refused') return gate.output;
    this.beforeWrite();
    return external.call(name, args as Record<string, unknown>, { sessionId: row.id, signal });
  }

  private toolContext(signal?: AbortSignal): ToolContext {
    const row = this.record.row;
    return {
      root: row.root,
      knownHash: this.knownHash,
      storedBody: (number) => this.deps.store.getResult(row.id, number)?.body,
      plan: row.plan,
      setPlan: (items) => this.record.update({ plan: items }),
      mode: row.mode,
      signal,
      commands: this.deps.commands,
      askPerson: async (preview, reason) => {
        const approve = this.deps.permissions?.approve;
        return approve?.({ sessionId: row.id, tool: 'plan_submit', args: {}, paths: [], preview, reason });
      },
      setMode: (mode) => this.record.setMode(mode),
    };
  }
}
