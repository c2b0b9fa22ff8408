/**
 * The one way an engine and an agent loop are opened — by the app service, the CLI, the benchmarks
 * and the tests alike — so that what a session runs on is wired in one place.
 */
import type { Engine } from './core/engine/types.js';
import { DEFAULT_PROMPTS_DIR } from './core/prompts/buildSystemPrompt.js';
import { AgentLoop, type LoopOptions } from './core/session/loop.js';
import { LlamaEngine } from './llm/engine.js';
import type { LoadedModel } from './llm/model.js';
import type { ServerConnection } from './remote/connect.js';
import { ServerEngine } from './remote/engine.js';

/**
 * What a session's requests run on: a GGUF loaded in this process, or a model on a server
 * (main/remote: connectServer checks the URL, key and model first).
 * `stateBudget`: the bytes saved KV states may take in their folder (the oldest go first).
 */
export type EngineSource =
  | { kind: 'local'; model: LoadedModel; stateBudget?: number }
  | { kind: 'server'; server: ServerConnection };

export function openEngine(source: EngineSource): Engine {
  switch (source.kind) {
    case 'local':
      return new LlamaEngine(source.model, source.stateBudget);
    case 'server':
      return new ServerEngine(source.server);
  }
}

export interface AgentWiring extends Omit<LoopOptions, 'promptsDir'> {
  promptsDir?: string;
}

/** An agent loop on an engine; the session brings its own fixed tool list. */
export function openAgent(o: AgentWiring): AgentLoop {
  return new AgentLoop({ ...o, promptsDir: o.promptsDir ?? DEFAULT_PROMPTS_DIR });
}
