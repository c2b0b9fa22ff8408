import { commitChange, openForChange, replaceIn } from './fileChange.js';
import type { Tool } from './types.js';

interface Args { path: string; old_string: string; new_string: string; replace_all?: boolean }

/** Replaces one exact occurrence of `old_string` (or all, with `replace_all`); fails changing nothing. */
export const editTool: Tool<Args> = {
  name: 'edit',
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'File path, relative to the workspace root or absolute.' },
      old_string: { type: 'string', description: 'The exact text to replace.' },
      new_string: { type: 'string', description: 'The text to put in its place.' },
      replace_all: { type: 'boolean', description: 'Replace every occurrence (default false).' },
    },
    required: ['path', 'old_string', 'new_string'],
  },
  async run(args, ctx) {
    const target = openForChange(ctx, args.path, true);
    const text = replaceIn(target, target.raw, args.old_string, args.new_string, args.replace_all ?? false);
    return { kind: 'change', files: [commitChange(target, text)] };
  },
};
