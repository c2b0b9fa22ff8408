import { commitChange, inFileEol, openForChange } from './fileChange.js';
import type { Tool } from './types.js';

interface Args { path: string; content: string }

/** Creates or overwrites a file. Over an existing file, its line ending and BOM are kept. */
export const writeTool: Tool<Args> = {
  name: 'write',
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'File path, relative to the workspace root or absolute.' },
      content: { type: 'string', description: 'The whole new content of the file.' },
    },
    required: ['path', 'content'],
  },
  async run(args, ctx) {
    const target = openForChange(ctx, args.path, false);
    return { kind: 'change', files: [commitChange(target, inFileEol(target, args.content))] };
  },
};
