import { z } from 'zod';
import { commitChange, openForChange, replaceIn } from './fileChange.js';
import { toolParameters } from './schema.js';
import type { Tool } from './types.js';
import { WRITES_PATH } from './access.js';

const Args = z.strictObject({
  path: z.string().describe('File path, relative to the workspace root or absolute.'),
  old_string: z.string().describe('The exact text to replace.'),
  new_string: z.string().describe('The text to put in its place.'),
  replace_all: z.boolean().describe('Replace every occurrence (default false).').optional(),
});
type Args = z.infer<typeof Args>;

/** Replaces one exact occurrence of `old_string` (or all, with `replace_all`); fails changing nothing. */
export const editTool: Tool<Args> = {
  name: 'edit',
  access: WRITES_PATH,
  parameters: toolParameters(Args),
  async run(args, ctx) {
    const target = await openForChange(ctx, args.path, true);
    const text = replaceIn(target, target.raw, args.old_string, args.new_string, args.replace_all ?? false);
    return { kind: 'change', files: [await commitChange(target, text)] };
  },
};
