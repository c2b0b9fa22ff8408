/**
 * The one way an engine and an agent loop are opened — by the app service, the CLI, the benchmarks
 * and the tests alike — so that what a session runs on is wired in one place.
 */
import type { Engine, ToolSpec } from './core/engine/types.js';
import { DEFAULT_PROMPTS_DIR, toolDescription } from './core/prompts/buildSystemPrompt.js';
import { AgentLoop, type LoopOptions } from './core/session/loop.js';
import { ToolRegistry } from './core/tools/registry.js';
import { LlamaEngine } from './llm/engine.js';
import type { LoadedModel } from './llm/model.js';

/**
 * What a session's requests run on: a GGUF loaded in this process (a model server joins here).
 * `stateBudget`: the bytes saved KV states may take in their folder (the oldest go first).
 */
export type EngineSource = { kind: 'local'; model: LoadedModel; stateBudget?: number };

export function openEngine(source: EngineSource): Engine {
  switch (source.kind) {
    case 'local':
      return new LlamaEngine(source.model, source.stateBudget);
  }
}

export interface AgentWiring extends Omit<LoopOptions, 'tools' | 'promptsDir'> {
  /** The registry the session's tools come from (default: every tool). */
  tools?: ToolRegistry;
  promptsDir?: string;
}

/** An agent loop on an engine, with the session's tool list read once, when the loop is opened. */
export function openAgent(o: AgentWiring): AgentLoop {
  const promptsDir = o.promptsDir ?? DEFAULT_PROMPTS_DIR;
  const specs = toolSpecs(o.tools ?? new ToolRegistry(), promptsDir);
  return new AgentLoop({ ...o, promptsDir, tools: () => specs });
}

/** The tools as the model is told of them: each one's schema and its prompts/tools/NAME.md. */
export function toolSpecs(tools: ToolRegistry, promptsDir: string): ToolSpec[] {
  return tools.names().map((name) => ({ name, description: toolDescription(promptsDir, name), parameters: tools.get(name)!.parameters }));
}
