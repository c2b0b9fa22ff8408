import { commitChange, openForChange, replaceIn } from './fileChange.js';
import type { Tool } from './types.js';

interface Edit { old_string: string; new_string: string; replace_all?: boolean }
interface Args { path: string; edits: Edit[] }

/** Several edits to one file, each applied to the result of the one before; all or nothing. */
export const multieditTool: Tool<Args> = {
  name: 'multiedit',
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'File path, relative to the workspace root or absolute.' },
      edits: {
        type: 'array',
        description: 'Edits applied in order.',
        items: {
          type: 'object',
          properties: {
            old_string: { type: 'string' },
            new_string: { type: 'string' },
            replace_all: { type: 'boolean' },
          },
          required: ['old_string', 'new_string'],
        },
      },
    },
    required: ['path', 'edits'],
  },
  async run(args, ctx) {
    const target = openForChange(ctx, args.path, true);
    const text = args.edits.reduce(
      (current, e) => replaceIn(current, e.old_string, e.new_string, e.replace_all ?? false, target.absPath),
      target.text,
    );
    return { kind: 'change', files: [commitChange(target, text)] };
  },
};
