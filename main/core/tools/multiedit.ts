import { z } from 'zod';
import { commitChange, openForChange, replaceIn } from './fileChange.js';
import { toolParameters } from './schema.js';
import { ToolError, type Tool } from './types.js';
import { WRITES_PATH } from './access.js';

const Edit = z.strictObject({ old_string: z.string(), new_string: z.string(), replace_all: z.boolean().optional() });
const Args = z.strictObject({
  path: z.string().describe('File path, relative to the workspace root or absolute.'),
  edits: z.array(Edit).describe('Edits applied in order.'),
});
type Edit = z.infer<typeof Edit>;
type Args = z.infer<typeof Args>;

/** Several edits to one file, each applied to the result of the one before; all or nothing. */
export const multieditTool: Tool<Args> = {
  name: 'multiedit',
  access: WRITES_PATH,
  parameters: toolParameters(Args),
  async run(args, ctx) {
    const target = await openForChange(ctx, args.path, true);
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
    return { kind: 'change', files: [await commitChange(target, text)] };
  },
};
