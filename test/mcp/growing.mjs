#!/usr/bin/env node
// A real MCP server on the SDK (stdio) for tests of what the npm servers cannot be made to do on
// cue: its tool list grows when `grow` is called (a tools/list_changed notification), it gives the
// instructions in $INSTRUCTIONS, lists a tool whose name has characters a model's call cannot carry,
// and `write_note` writes a file in its working folder (a tool with effects, not marked read-only).
import fs from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const object = (properties = {}, required = []) => ({ type: 'object', properties, required });
const tools = [
  { name: 'grow', description: 'Adds the tool "grown" to this server.', inputSchema: object(), annotations: { readOnlyHint: false } },
  { name: 'look.around', description: 'Says where the server runs.', inputSchema: object(), annotations: { readOnlyHint: true } },
  {
    name: 'write_note', description: 'Writes note.txt in the folder the server runs in.',
    inputSchema: object({ text: { type: 'string' } }, ['text']),
  },
];

const server = new Server(
  { name: 'growing', version: '1.0.0' },
  { capabilities: { tools: { listChanged: true } }, ...(process.env.INSTRUCTIONS ? { instructions: process.env.INSTRUCTIONS } : {}) },
);
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: args = {} } = request.params;
  if (name === 'grow') {
    if (!tools.some((t) => t.name === 'grown')) tools.push({ name: 'grown', description: 'Added while running.', inputSchema: object() });
    await server.sendToolListChanged();
    return { content: [{ type: 'text', text: 'Grown.' }] };
  }
  if (name === 'look.around') return { content: [{ type: 'text', text: `cwd ${process.cwd()}` }] };
  if (name === 'write_note') {
    fs.writeFileSync('note.txt', String(args.text));
    return { content: [{ type: 'text', text: 'Wrote note.txt.' }] };
  }
  return { content: [{ type: 'text', text: `No tool ${name}.` }], isError: true };
});
await server.connect(new StdioServerTransport());
