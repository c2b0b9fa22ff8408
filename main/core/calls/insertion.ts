import type { HookRun } from '../hooks/run.js';
import { insertResult } from '../hygiene/insert.js';
import type { Inserted, TableEntry } from '../hygiene/types.js';
import type { RawOutput } from '../types.js';
import { SessionError } from '../state/deps.js';
import type { SessionStore, Turn } from '../state/types.js';

/**
 * Insertion (spec §1–§6): a tool's raw output becomes its numbered result — against the dedupe
 * table of the request being built — and is stored, once, with its length in tokens. It keeps
 * what follows from the results: the next number, the hash the session last saw of each file, and
 * each result's text. (The result joins its turn's tables when its reply is stored: turns.ts.)
 */
export class Insertion {
  /** Results' inserted text, by number: kept as each is stored, or read from the store once (see text). */
  private readonly texts = new Map<number, string>();

  constructor(
    private readonly store: SessionStore,
    private readonly sessionId: number,
    private readonly now: () => Date,
    private nextNumber: number,
    /** The hash the session last saw of each file (absolute path), from reads and changes. */
    private readonly known: Map<string, string>,
  ) {}

  /** The number the next result is stored as. */
  get next(): number {
    return this.nextNumber;
  }

  knownHash(absPath: string): string | undefined {
    return this.known.get(absPath);
  }

  /** What the session knows of each file becomes `known` (after a rewind with files: what it knew before the turn). */
  setKnown(known: ReadonlyMap<string, string>): void {
    this.known.clear();
    for (const [k, v] of known) this.known.set(k, v);
  }

  /** What the next result would be inserted as, against `table`; nothing is stored until `commit`. */
  compute(table: readonly TableEntry[], name: string, args: unknown, raw: RawOutput): Inserted {
    return insertResult({ number: this.nextNumber, tool: name, args, raw, table });
  }

  /**
   * Stores a computed result of `turn` (committed before it returns), with its length in tokens
   * where known and the hooks that ran for the call (kept for the person).
   */
  commit(turn: Turn, name: string, args: unknown, raw: RawOutput, inserted: Inserted, also: { tokens?: number; hooks?: readonly HookRun[] } = {}): Inserted {
    const { tokens, hooks = [] } = also;
    if (inserted.number !== this.nextNumber) throw new SessionError(`Result #${inserted.number} was computed for another place than #${this.nextNumber}.`);
    this.store.insertResult({
      sessionId: this.sessionId, number: inserted.number, turnId: turn.id, tool: name, args: JSON.stringify(args ?? null),
      kind: inserted.kind, pathGiven: inserted.read?.pathGiven, pathResolved: inserted.read?.absPath,
      fileHash: inserted.read?.hash, lineStart: inserted.read?.start, lineEnd: inserted.read?.end,
      lineTotal: inserted.read?.total, files: inserted.wrote && JSON.stringify(inserted.wrote),
      touched: inserted.touched && JSON.stringify(inserted.touched),
      argsKey: inserted.entry?.kind === 'result' ? inserted.entry.argsKey : undefined,
      body: inserted.body, inserted: inserted.text, tokens, hooks: hooks.length ? JSON.stringify(hooks) : undefined, createdAt: this.now().toISOString(),
    }, raw.kind === 'text' ? raw.attachments : undefined);
    this.nextNumber++;
    this.texts.set(inserted.number, inserted.text);
    if (inserted.read) this.known.set(inserted.read.absPath, inserted.read.hash);
    for (const f of inserted.wrote ?? []) {
      if (f.hash) this.known.set(f.absPath, f.hash);
      else this.known.delete(f.absPath);
    }
    return inserted;
  }

  /**
   * The text a result was inserted as (what the model got). A result's text never changes once
   * stored, so each is kept as it is stored, or read from the store once (a resumed session's): a
   * request carries every result of the history, and reading them all again (with their full
   * bodies) on every request cost time that grew with it.
   */
  text(number: number): string {
    const kept = this.texts.get(number);
    if (kept !== undefined) return kept;
    const row = this.store.getResult(this.sessionId, number);
    if (!row) throw new SessionError(`No result #${number} in session ${this.sessionId}.`);
    this.texts.set(number, row.inserted);
    return row.inserted;
  }
}
