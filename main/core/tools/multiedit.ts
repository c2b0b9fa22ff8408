import { commitChange, openForChange, replaceIn } from './fileChange.js';
import { ToolError, type Tool } from './types.js';

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
    const n = args.edits.length;
    const text = args.edits.reduce((current, e, i) => {
      try {
        return replaceIn(target, current, e.old_string, e.new_string, e.replace_all ?? false);
      } catch (err) {
        // Say which edit failed: it may fail only because an earlier one changed its text.
        if (err instanceof ToolError && n > 1) throw new ToolError(err.message.replace(/^Error: /, `Error: edit ${i + 1} of ${n}: `));
        throw err;
      }
    }, target.raw);
    return { kind: 'change', files: [commitChange(target, text)] };
  },
};
