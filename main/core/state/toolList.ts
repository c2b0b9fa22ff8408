import { toolDescription } from '../prompts/buildSystemPrompt.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { ToolSpec } from '../types.js';

/**
 * The built-in tools as a session offers them: registry order, each description read from
 * prompts/tools/NAME.md now. Read once, when a session's list is built (spec §10.4): editing a
 * description file changes the next session, never one already running. `skill` is offered only
 * where a skill existed when the session began (`skills`), a fact fixed for the session's life:
 * elsewhere the list is the one it was before skills were read.
 */
export function builtinSpecs(promptsDir: string, tools: ToolRegistry, { skills = false }: { skills?: boolean } = {}): ToolSpec[] {
  return tools.names().filter((name) => skills || name !== 'skill')
    .map((name) => ({ name, description: toolDescription(promptsDir, name), parameters: tools.get(name)!.parameters }));
}

/**
 * A session's fixed tool list: the built-ins, then the external (MCP) tools sorted by name
 * (code-unit order, so the list does not depend on which server answered first). An external name
 * equal to a built-in's is left out: the built-in keeps its name.
 */
export function sessionToolList(builtins: readonly ToolSpec[], external: readonly ToolSpec[]): ToolSpec[] {
  const taken = new Set(builtins.map((t) => t.name));
  const extra = external.filter((t) => !taken.has(t.name) && (taken.add(t.name), true));
  return [...builtins, ...extra.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))];
}
