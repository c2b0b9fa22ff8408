import loop from '../../loop.json' with { type: 'json' };

/** The numbers and texts of the loop (loop.json). Every measure reads them from here. */
export type ContextConfig = typeof loop.context;
export const contextConfig: ContextConfig = loop.context;
export const toolConfig = loop.tools;
/** MCP: names, texts and limits of tools from MCP servers. */
export const mcpConfig = loop.mcp;
/** Hooks: the texts the model hears of them, their default timeout and output bound. */
export const hooksConfig = loop.hooks;

/** The agent loop's numbers (loop.json `loop`, each with its reason there). */
export const loopConfig = {
  repeatLimit: loop.loop.repeat_limit.value,
  compactAt: loop.loop.compact_at.value,
  maxSteps: loop.loop.max_steps.value,
  maxReplyTokens: loop.loop.max_reply_tokens.value,
  temperature: loop.loop.temperature.value,
  recallPage: loop.loop.recall_page.value,
  idleSaveMs: loop.loop.idle_save_ms.value,
} as const;

/** Fills `{{name}}` placeholders of a loop.json text. */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, key: string) =>
    key in values ? String(values[key]) : whole,
  );
}

/** Checkpoints: the size over which a file is named, not copied; the texts the person is told. */
export const checkpointConfig = {
  maxFileBytes: loop.checkpoints.max_file_bytes.value,
  texts: loop.checkpoints.texts,
} as const;

/** Subagents (the `task` tool): their step limit, how many run at once, the general one's tools, where agents are defined, the texts. */
export const subagentsConfig = {
  maxSteps: loop.subagents.max_steps.value,
  maxParallel: loop.subagents.max_parallel.value,
  readOnlyTools: loop.subagents.read_only_tools.value,
  folders: loop.subagents.folders.value,
  texts: loop.subagents.texts,
} as const;

/** Skills (the `skill` tool): where they are read, the longest description the prompt lists, the texts. */
export const skillsConfig = {
  folders: loop.skills.folders.value,
  maxDescription: loop.skills.max_description.value,
  texts: loop.skills.texts,
} as const;
