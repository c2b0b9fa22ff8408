import { z } from 'zod';
import { commitChange, inFileEol, openForChange } from './fileChange.js';
import { toolParameters } from './schema.js';
import type { Tool } from './types.js';
import { WRITES_PATH } from './access.js';

const Args = z.strictObject({
  path: z.string().describe('File path, relative to the workspace root or absolute.'),
  content: z.string().describe('The whole new content of the file.'),
});
type Args = z.infer<typeof Args>;

/** Creates or overwrites a file. Over an existing file, its line ending and BOM are kept. */
export const writeTool: Tool<Args> = {
  name: 'write',
  access: WRITES_PATH,
  parameters: toolParameters(Args),
  async run(args, ctx) {
    const target = await openForChange(ctx, args.path, false);
    return { kind: 'change', files: [await commitChange(target, inFileEol(target, args.content))] };
  },
};
