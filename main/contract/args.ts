/** The argument shapes several contract methods share (contract.ts and its blocks). Values only. */

export const SESSION_ID = { type: 'integer', minimum: 1 } as const;
/** A turn's number in its session (TurnView.seq). */
export const SEQ = { type: 'integer', minimum: 1 } as const;
export const TEXT = { type: 'string' } as const;
export const PATH = { type: 'string' } as const;
export const FLAG = { type: 'boolean' } as const;

/** An MCP server an editor passes over ACP (its `McpServerStdio`): what runs, with its environment as name and value pairs. */
export const EDITOR_SERVERS = { type: 'array', items: { type: 'object', required: ['name', 'command', 'args', 'env'], properties: {
  name: TEXT, command: TEXT, args: { type: 'array', items: TEXT },
  env: { type: 'array', items: { type: 'object', required: ['name', 'value'], properties: { name: TEXT, value: TEXT } } },
} } } as const;

