import { z } from 'zod';
import { contextConfig } from '../config.js';
import { resolveInWorkspace } from '../workspace/paths.js';
import { splitLines } from '../workspace/text.js';
import { readShown } from './fileSource.js';
import { toolParameters } from './schema.js';
import { ToolError, type Tool } from './types.js';
import { READS_PATH } from './access.js';

const Args = z.strictObject({
  path: z.string().describe('File path, relative to the workspace root or absolute.'),
  offset: z.int().min(1).describe('First line to show, 1-based (default 1).').optional(),
  limit: z.int().min(1).describe('Number of lines to show (default and max 2000).').optional(),
});
type Args = z.infer<typeof Args>;

/** Shows up to `read.max_lines` lines of a text file from `offset`; hygiene numbers and brackets them. */
export const readTool: Tool<Args> = {
  name: 'read',
  access: READS_PATH,
  parameters: toolParameters(Args),
  async run(args, ctx) {
    const absPath = resolveInWorkspace(ctx.root, args.path);
    const file = await readShown(absPath, ctx.files);
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

