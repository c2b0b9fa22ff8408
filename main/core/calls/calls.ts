import { validateArgs } from '../validate.js';
import { fill, mcpConfig } from '../config.js';
import { parseExternalName, unavailable } from '../tools/external.js';
import type { Tool, ToolContext } from '../tools/types.js';
import { ToolError, type RawOutput, type ToolSpec } from '../types.js';
import { hiddenFrom, passExternalGate, passGate, recallRefusal } from '../permissions/approval.js';
import { rulesFor, type PermissionOptions, type Rule } from '../permissions/types.js';
import { formatId, parseId } from '../hygiene/ids.js';
import type { Inserted } from '../hygiene/types.js';
import type { Hooks } from '../hooks/hooks.js';
import type { HookRun } from '../hooks/run.js';
import type { SessionDeps } from '../state/deps.js';
import type { SessionFiles } from '../state/files.js';
import { instructionsNow } from '../state/notes.js';
import type { KeptPrompt } from '../state/prompt.js';
import type { SessionRecord } from '../state/record.js';
import type { Turns } from '../state/turns.js';
import type { Turn } from '../state/types.js';
import type { Insertion } from './insertion.js';

/**
 * A call's result as the model got it, with its length in the engine's tokens where that was
 * counted, and the hooks that ran for it (shown to the person; the model got only `text`). The
 * one value a caller needs: nothing is read back from the store for it.
 */
export type CallResult = Inserted & { tokens?: number; hooks?: HookRun[] };

/** What a caller hands a call besides the call itself. */
export interface CallOptions {
  signal?: AbortSignal;
  /** The engine's count of a text's tokens: the result is stored with it, in the one write. */
  countTokens?: (text: string) => Promise<number>;
  /**
   * Allow rules that hold for this call besides the person's (a slash command's `allowed-tools`, for
   * the turn it started): they let a call run without asking; a deny or ask rule still wins.
   */
  allowed?: readonly Rule[];
}

/**
 * The one call pipeline: every tool call the model makes, built-in or an MCP server's, goes through
 * `run`, and nothing else runs a tool. In order: resolve (a tool of the session's fixed list, spec
 * §10.4) → its arguments checked against the schema the model was sent → PreToolUse hooks → the
 * gate (the person's rules, the mode, an approval; the tool's declared access) → the tool → the
 * result inserted against the dedupe table (insertion.ts) → PostToolUse hooks → stored once, counted,
 * and added to its turn and to the session's file changes. The result waits in its turn for the
 * reply that carries it (state/turns.ts): only then does it join the dedupe table, so a failure
 * before that leaves it in neither the request nor the table.
 */
/** A call whose tool is under way (Calls.begin): what finishing it needs. */
interface Begun {
  name: string;
  args: unknown;
  o: CallOptions;
  runs: HookRun[];
  before: ReturnType<typeof instructionsNow>;
  raw: Promise<RawOutput>;
}

export class Calls {
  /** "Always for this session" approvals: tool and target. */
  private readonly grants = new Set<string>();

  constructor(
    private readonly deps: SessionDeps,
    private readonly record: SessionRecord,
    private readonly turns: Turns,
    private readonly prompt: KeptPrompt,
    private readonly insertion: Insertion,
    private readonly hooks: Hooks,
    private readonly files: SessionFiles,
  ) {}

  /** A tool call as the model made it, from its raw output to its stored result. */
  async run(name: string, args: unknown, o: CallOptions = {}): Promise<CallResult> {
    return this.finish(this.begin(name, args, o));
  }

  /**
   * The calls of one reply, in order. Calls of a `concurrent` tool next to each other run at the same
   * time (subagents); every result is then inserted and stored in the order the calls were made.
   * `reject` answers a call that is not to run (its problem); `started` hears of each call as it starts,
   * with the number its result will have; `done` hears of each result as it is stored.
   */
  async runAll(
    calls: readonly { name: string; args: unknown; problem?: string }[], o: CallOptions, done: (result: CallResult, index: number) => void,
    started?: (index: number, number: number) => void,
  ): Promise<CallResult[]> {
    const results: CallResult[] = [];
    for (let i = 0; i < calls.length;) {
      let end = i + 1;
      while (this.concurrent(calls[i]) && end < calls.length && this.concurrent(calls[end])) end++;
      // Every earlier result is stored by now, and these are stored in call order: their numbers follow.
      for (let k = i; k < end; k++) started?.(k, this.insertion.next + k - i);
      const begun = calls.slice(i, end).map((c) => (c.problem === undefined ? this.begin(c.name, c.args, o) : undefined));
      for (const [k, call] of calls.slice(i, end).entries()) {
        const started = begun[k];
        const result = started ? await this.finish(started) : await this.reject(call.name, call.args ?? null, call.problem!, o);
        results.push(result);
        done(result, i + k);
      }
      i = end;
    }
    return results;
  }

  private concurrent(call: { name: string; problem?: string }): boolean {
    return call.problem === undefined && this.deps.tools.get(call.name)?.concurrent === true && this.tools.some((t) => t.name === call.name);
  }

  /** A call's output under way, with the instruction files as they were before it. */
  private begin(name: string, args: unknown, o: CallOptions): Begun {
    const runs: HookRun[] = [];
    // The instruction files now (state/notes.ts): a call that changes one is the session's change, whatever tool made it.
    const before = instructionsNow(this.record.row.root);
    const raw = this.output(name, args, runs, o.signal, o.allowed);
    // Not awaited here: a rejection is the caller's once it finishes the call.
    raw.catch(() => {});
    return { name, args, o, runs, before, raw };
  }

  private async finish({ name, args, o, runs, before, raw: pending }: Begun): Promise<CallResult> {
    const raw = await pending;
    const turn = this.turns.current();
    let inserted = this.compute(name, args, raw);
    // PostToolUse sees the result as it will be inserted; its feedback joins it before it is first sent (contract.md, Hooks).
    if (raw.kind !== 'error' && !this.hooks.empty) {
      const post = await this.hooks.postToolUse(name, args, inserted.text, formatId(inserted.number), o.signal);
      runs.push(...post.runs);
      if (post.text) inserted = { ...inserted, text: inserted.text + post.text };
    }
    // An instruction file the call changed without a diff in its result (a command rewrote it): the session's change.
    const touched = instructionsNow(this.record.row.root)
      .filter((f, i) => f.hash !== before[i].hash && !inserted.wrote?.some((w) => w.absPath === f.absPath && w.hash === f.hash))
      .map(({ absPath, hash }) => ({ absPath, hash }));
    if (touched.length > 0) inserted = { ...inserted, touched };
    return this.store(turn, name, args, raw, inserted, runs, o.countTokens);
  }

  /** A call the model made that could not be read (malformed arguments), or is not run (a repeat): answered with an error. */
  async reject(name: string, args: unknown, problem: string, o: CallOptions = {}): Promise<CallResult> {
    const raw: RawOutput = { kind: 'error', message: `Error: ${problem}` };
    const turn = this.turns.current();
    return this.store(turn, name, args, raw, this.compute(name, args, raw), [], o.countTokens);
  }

  /** The session's tool list (spec §10.4): only these can be called. */
  private get tools(): readonly ToolSpec[] {
    return this.record.row.tools ?? [];
  }

  /**
   * A call's raw output: the tool's answer, a refusal, or the error that says why it did not run.
   * PreToolUse hooks see every call whose arguments are good, before the gate asks anyone; their
   * runs are added to `runs`.
   */
  private async output(name: string, args: unknown, runs: HookRun[], signal?: AbortSignal, allowed?: readonly Rule[]): Promise<RawOutput> {
    const listed = this.tools.some((t) => t.name === name);
    const external = listed ? parseExternalName(name) : undefined;
    if (external) {
      if (!args || typeof args !== 'object' || Array.isArray(args)) return { kind: 'error', message: fill(mcpConfig.texts.not_object, { name }) };
      return (await this.blocked(name, args, runs, signal)) ?? this.runExternal(name, external.server, args, signal, allowed);
    }
    const tool = listed ? this.deps.tools.get(name) : undefined;
    if (!tool) {
      return { kind: 'error', message: `Error: there is no tool "${name}". The tools are: ${this.tools.map((t) => t.name).join(', ')}.` };
    }
    const problem = validateArgs(tool.parameters, args);
    if (problem) return { kind: 'error', message: `Error: invalid arguments for ${name}: ${problem}.` };
    return (await this.blocked(name, args, runs, signal)) ?? this.gated(tool, args as Record<string, unknown>, signal, allowed);
  }

  /** The PreToolUse hooks' answer: the error a blocked call gets, or undefined to go on. */
  private async blocked(name: string, args: unknown, runs: HookRun[], signal?: AbortSignal): Promise<RawOutput | undefined> {
    if (this.hooks.empty) return undefined;
    const pre = await this.hooks.preToolUse(name, args, signal);
    runs.push(...pre.runs);
    return pre.text === undefined ? undefined : { kind: 'error', message: pre.text };
  }

  /** A built-in tool with valid arguments: the gate, then the tool with the access it granted. */
  private async gated(tool: Tool, args: Record<string, unknown>, signal?: AbortSignal, allowed?: readonly Rule[]): Promise<RawOutput> {
    const row = this.record.row;
    const rules = rulesFor(this.deps.permissions ?? {}, row.root);
    const ctx = { ...this.toolContext(signal), hidden: hiddenFrom(rules, tool.name, row.root) };
    try {
      const gate = await passGate({ sessionId: row.id, mode: row.mode }, tool, args, ctx, this.permissions(allowed), this.grants);
      if (gate.kind === 'refused') return gate.output;
      const recalled = tool.name === 'recall' ? this.recalled(String(args.id)) : undefined;
      const refused = recalled && recallRefusal(rules, row.root, String(args.id), recalled);
      if (refused) return refused;
      // A command the gate let write: what it changes is found by a walk (state/files.ts).
      if (tool.name === 'bash' && gate.access !== undefined && gate.access !== 'read-only') this.files.beforeWrite(this.turns.current().seq);
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
  private async runExternal(name: string, server: string, args: object, signal?: AbortSignal, allowed?: readonly Rule[]): Promise<RawOutput> {
    const external = this.deps.external;
    if (!external) return unavailable(name, server, 'not configured here');
    const info = external.describe(name);
    if ('kind' in info) return info;
    const row = this.record.row;
    const gate = await passExternalGate({ sessionId: row.id, mode: row.mode, root: row.root }, name, info, args as Record<string, unknown>, this.permissions(allowed), this.grants);
    if (gate.kind === 'refused') return gate.output;
    this.files.beforeWrite(this.turns.current().seq);
    return external.call(name, args as Record<string, unknown>, { sessionId: row.id, signal });
  }

  /** The session's permissions, with a turn's allow rules after the person's (the gate checks deny, then ask, then allow). */
  private permissions(allowed: readonly Rule[] = []): PermissionOptions {
    const o = this.deps.permissions ?? {};
    return allowed.length === 0 ? o : { ...o, rules: [...(o.rules ?? []), ...allowed] };
  }

  private toolContext(signal?: AbortSignal): ToolContext {
    const row = this.record.row;
    return {
      root: row.root,
      knownHash: (absPath) => this.insertion.knownHash(absPath),
      storedBody: (number) => this.deps.store.getResult(row.id, number)?.body,
      plan: row.plan,
      setPlan: (items) => this.record.update({ plan: items }),
      mode: row.mode,
      signal,
      commands: this.deps.commands,
      shells: this.deps.shells?.forSession(row.id),
      subagents: this.deps.subagents?.(row),
      files: this.deps.files?.(row.id),
      askPerson: async (preview, reason) => {
        const approve = this.deps.permissions?.approve;
        return approve?.({ sessionId: row.id, tool: 'plan_submit', args: {}, paths: [], preview, reason });
      },
      setMode: (mode) => this.record.setMode(mode),
    };
  }

  private compute(name: string, args: unknown, raw: RawOutput): Inserted {
    this.prompt.forRequest();
    return this.insertion.compute(this.turns.table(), name, args, raw);
  }

  /**
   * Counts the text, then stores the result in one write and hands the value on. A count that
   * fails still leaves the result stored (the tool ran), without its length, and then throws:
   * the reply that would carry the result is never stored, so it joins no table.
   */
  private async store(
    turn: Turn, name: string, args: unknown, raw: RawOutput, inserted: Inserted, runs: HookRun[], count?: (text: string) => Promise<number>,
  ): Promise<CallResult> {
    let tokens: number | undefined;
    let failed: { error: unknown } | undefined;
    if (count) {
      try {
        tokens = await count(inserted.text);
      } catch (error) {
        failed = { error };
      }
    }
    const stored = this.insertion.commit(turn, name, args, raw, inserted, { tokens, hooks: runs });
    this.turns.ran(turn, stored);
    this.files.afterCall(turn.seq, stored);
    if (failed) throw failed.error;
    return { ...stored, ...(tokens === undefined ? {} : { tokens }), ...(runs.length === 0 ? {} : { hooks: runs }) };
  }
}
