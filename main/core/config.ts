import loop from '../../loop.json' with { type: 'json' };

/** The numbers and texts of the loop (loop.json). Every measure reads them from here. */
export type ContextConfig = typeof loop.context;
export const contextConfig: ContextConfig = loop.context;
export const toolConfig = loop.tools;
/** MCP: names, texts and limits of tools from MCP servers. */
export const mcpConfig = loop.mcp;

/** Fills `{{name}}` placeholders of a loop.json text. */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, key: string) =>
    key in values ? String(values[key]) : whole,
  );
}
