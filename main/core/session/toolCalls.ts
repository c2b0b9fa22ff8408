import { formatId } from '../hygiene/ids.js';
import type { Inserted } from '../hygiene/types.js';
import type { Hooks } from '../hooks/hooks.js';
import type { HookRun } from '../hooks/run.js';
import type { RawOutput } from '../types.js';
import type { Dispatch } from './dispatch.js';
import type { SessionFiles } from './files.js';
import type { Insertion } from './insertion.js';
import type { KeptPrompt } from './prompt.js';
import type { Turns } from './turns.js';
import type { Turn } from './types.js';

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
}

/**
 * The model's tool calls, from dispatch to a stored result: dispatched (validated, gated, run),
 * inserted against the dedupe table, shown to PostToolUse hooks, counted, then stored once. The
 * result waits in its turn for the reply that carries it (turns.ts): only then does it join the
 * dedupe table, so a failure before that leaves it in neither the request nor the table.
 */
export class ToolCalls {
  constructor(
    private readonly dispatch: Dispatch,
    private readonly insertion: Insertion,
    private readonly turns: Turns,
    private readonly prompt: KeptPrompt,
    private readonly hooks: Hooks,
    private readonly files: SessionFiles,
    /** The instruction file now (notes.ts): a call that changes it is the session's change, whatever tool made it. */
    private readonly instructions: () => { absPath: string; hash: string },
  ) {}

  /** A tool call as the model made it. A step on the raw result before insertion goes between dispatch and insertion. */
  async call(name: string, args: unknown, o: CallOptions = {}): Promise<CallResult> {
    const runs: HookRun[] = [];
    const before = this.instructions();
    const raw = await this.dispatch.run(name, args, o.signal, runs);
    const turn = this.turns.current();
    let inserted = this.compute(name, args, raw);
    // PostToolUse sees the result as it will be inserted; its feedback joins it before it is first sent (contract.md, Hooks).
    if (raw.kind !== 'error' && !this.hooks.empty) {
      const post = await this.hooks.postToolUse(name, args, inserted.text, formatId(inserted.number), o.signal);
      runs.push(...post.runs);
      if (post.text) inserted = { ...inserted, text: inserted.text + post.text };
    }
    const after = this.instructions();
    const shown = inserted.wrote?.some((f) => f.absPath === after.absPath && f.hash === after.hash);
    if (after.hash !== before.hash && !shown) inserted = { ...inserted, touched: [after] };
    return this.store(turn, name, args, raw, inserted, runs, o.countTokens);
  }

  /** A call the model made that could not be read (malformed arguments): answered with an error. */
  async reject(name: string, args: unknown, problem: string, o: CallOptions = {}): Promise<CallResult> {
    const raw: RawOutput = { kind: 'error', message: `Error: ${problem}` };
    const turn = this.turns.current();
    return this.store(turn, name, args, raw, this.compute(name, args, raw), [], o.countTokens);
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
