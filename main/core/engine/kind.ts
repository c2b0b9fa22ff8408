/**
 * An engine kind (types only): what a session's model id names — a GGUF here, a model on a server —
 * read once at the edge into a typed reference, then opened into an Engine. Each kind lives in its
 * own folder (main/llm/kind.ts, main/remote/kind.ts) and is one line of main/openEngine.ts's table;
 * the hosts (the app, the CLI, the benches) only ever hold references and the host hooks below.
 */
import type { Engine } from './types.js';

/** What every host gives an engine while it opens: the person's keys, and where to say things. */
export interface EngineHost {
  /** The API key kept for a server's URL, if any. */
  apiKey?(url: string): string | undefined;
  /** A retry, an interrupted reply, a fallback: said to the person as is. */
  notice?(text: string): void;
  /** How far opening what `label` names has come, 0 to 1 (a model loading). */
  progress?(label: string, fraction: number): void;
}

/**
 * One engine kind. `R` is its reference (`{ kind, … }`, what a session runs on, as data), `S` what
 * `connect` opened (a loaded model, a checked server), `H` the hooks it needs beyond EngineHost.
 */
export interface EngineKind<R extends { kind: string }, S extends { kind: R['kind'] }, H extends EngineHost = EngineHost> {
  readonly kind: R['kind'];
  /**
   * A model id as a session records it (or a person gives it), read as this kind's reference;
   * undefined when it is not this kind's. Throws an Error naming the text when it is this kind's
   * but malformed.
   */
  parse(id: string): R | undefined;
  /** The id a session records for the reference: `parse(id(ref))` gives `ref` back (settings aside). */
  id(ref: R): string;
  /** Whether what the reference names is gone for good (a deleted model file): a stored session then falls back. */
  gone?(ref: R): boolean;
  /** Loads or connects to what the reference names, and checks it; throws an Error saying what to do. */
  connect(ref: R, host: H): Promise<S>;
  /** An engine (one context sequence, one slot) on what `connect` opened. */
  engine(source: S): Engine;
}
