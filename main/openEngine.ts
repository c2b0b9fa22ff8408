/**
 * The one way an engine and an agent loop are opened — by the app service, the CLI, the benchmarks
 * and the tests alike — so that what a session runs on is wired in one place.
 *
 * A session's model is named by a string (`/models/x.gguf`, `http://host:8080#model`); it is read
 * once, at the edge, into a typed EngineRef, and everything past the edge holds the reference.
 * Each engine kind is its own folder's EngineKind (main/core/engine/kind.ts) and one line of ENGINES:
 * adding an engine is that folder and that line.
 */
import type { EngineHost, EngineKind } from './core/engine/kind.js';
import type { Engine } from './core/engine/types.js';
import { DEFAULT_PROMPTS_DIR } from './core/prompts/buildSystemPrompt.js';
import { AgentLoop, type LoopOptions } from './core/turn/loop.js';
import { localEngine } from './llm/kind.js';
import { serverEngine } from './remote/kind.js';

/**
 * The engine kinds, tried in this order when an id is read: a kind says whether an id is its own;
 * the local one, which reads any path, comes last.
 */
const ENGINES = [serverEngine, localEngine] as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- matches any kind, to read its types
type AnyKind = EngineKind<any, any, any>;
type Kinds = (typeof ENGINES)[number];
type RefOf<K> = K extends EngineKind<infer R, infer _S, infer _H> ? R : never;
type SourceOf<K> = K extends EngineKind<infer _R, infer S, infer _H> ? S : never;
type HostOf<K> = K extends EngineKind<infer _R, infer _S, infer H> ? H : never;
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** What a session runs on, as data: `{kind: 'local', file, settings}` or `{kind: 'server', url, model}`. */
export type EngineRef = RefOf<Kinds>;
/** What opening a reference gave: a loaded model, a checked server connection. */
export type EngineSource = SourceOf<Kinds>;
/** Every hook any kind takes from its host (each optional): a host gives what it has. */
export type EngineHosting = EngineHost & Intersection<HostOf<Kinds>>;

/** A model id that names no engine (empty, or a URL without `#MODEL`): its message names the text. */
export class EngineRefError extends Error {}

function kindOf(kind: string): AnyKind {
  const found = (ENGINES as readonly AnyKind[]).find((k) => k.kind === kind);
  if (!found) throw new EngineRefError(`No engine is of the kind "${kind}".`);
  return found;
}

/** Reads a model id (a session's, or one a person gave) into its reference; throws EngineRefError naming it. */
export function parseEngineRef(id: string): EngineRef {
  if (id.trim() === '') throw new EngineRefError('No model is chosen: choose a GGUF file or a server\'s model first.');
  for (const kind of ENGINES as readonly AnyKind[]) {
    const ref = kind.parse(id) as EngineRef | undefined;
    if (ref) return ref;
  }
  throw new EngineRefError(`"${id}" names no model: give a GGUF file's path, or a server's model as URL#MODEL (http://127.0.0.1:8080#name).`);
}

/** The id a session records for a reference. */
export function engineRefId(ref: EngineRef): string {
  return kindOf(ref.kind).id(ref);
}

/** Whether what a reference names is gone for good (a deleted model file). */
export function engineRefGone(ref: EngineRef): boolean {
  return kindOf(ref.kind).gone?.(ref) ?? false;
}

/** Loads or connects to what the reference names and checks it: nothing is changed when this throws. */
export function connectEngine(ref: EngineRef, host: EngineHosting = {}): Promise<EngineSource> {
  return kindOf(ref.kind).connect(ref, host) as Promise<EngineSource>;
}

/** An engine (one sequence, one slot) on what connectEngine opened (or a test loaded itself). */
export function openEngine(source: EngineSource): Engine {
  return kindOf(source.kind).engine(source);
}

export interface AgentWiring extends Omit<LoopOptions, 'promptsDir'> {
  promptsDir?: string;
}

/** An agent loop on an engine; the session brings its own fixed tool list. */
export function openAgent(o: AgentWiring): AgentLoop {
  return new AgentLoop({ ...o, promptsDir: o.promptsDir ?? DEFAULT_PROMPTS_DIR });
}
