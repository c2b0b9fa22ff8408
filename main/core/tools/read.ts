import { contextConfig } from '../config.js';
import { readTextFile } from '../workspace/files.js';
import { resolveInWorkspace } from '../workspace/paths.js';
import { splitLines } from '../workspace/text.js';
import { ToolError, type Tool } from './types.js';

interface Args { path: string; offset?: number; limit?: number }

/** Shows up to `read.max_lines` lines of a text file from `offset`; hygiene numbers and brackets them. */
export const readTool: Tool<Args> = {
  name: 'read',
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'File path, relative to the workspace root or absolute.' },
      offset: { type: 'integer', minimum: 1, description: 'First line to show, 1-based (default 1).' },
      limit: { type: 'integer', minimum: 1, description: 'Number of lines to show (default and max 2000).' },
    },
    required: ['path'],
  },
  async run(args, ctx) {
    const absPath = resolveInWorkspace(ctx.root, args.path);
    const file = readTextFile(absPath);
    const lines = splitLines(file.text);
    const offset = args.offset ?? 1;
    const limit = Math.min(args.limit ?? contextConfig.read.max_lines, contextConfig.read.max_lines);
    if (offset > Math.max(lines.length, 1)) {
      throw new ToolError(`Error: offset ${offset} is past the end of ${absPath}, which has ${lines.length} ${lines.length === 1 ? 'line' : 'lines'}.`);
    }
    const shown = lines.slice(offset - 1, offset - 1 + limit);
    return {
      kind: 'read',
      pathGiven: args.path,
      absPath,
      hash: file.hash,
      total: lines.length,
      start: offset,
      end: offset + shown.length - 1,
      lines: shown,
    };
  },
};

