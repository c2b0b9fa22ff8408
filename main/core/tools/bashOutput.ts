import { z } from 'zod';
import { fill, toolConfig } from '../config.js';
import { SESSION_ONLY } from './access.js';
import { toolParameters } from './schema.js';
import { describeShell, UnknownShell } from './shells.js';
import { ToolError, type Tool } from './types.js';

const Args = z.strictObject({
  bash_id: z.string().describe('The background shell, as bash answered when it started it (bg1).'),
  filter: z.string().describe('A regular expression: only the new lines it matches are shown (the others are read all the same).').optional(),
  wait_ms: z.int().min(0).describe(`Milliseconds to wait for the shell to end before reading (default 0, at most ${toolConfig.shells.max_wait_ms}).`).optional(),
});
type Args = z.infer<typeof Args>;

/**
 * What a background shell printed since the last read, then its status line; earlier output that
 * was not kept (the file started again) is said first. Hygiene caps the answer like any result.
 */
export const bashOutputTool: Tool<Args> = {
  name: 'bash_output',
  access: SESSION_ONLY,
  parameters: toolParameters(Args),
  async run(args, ctx) {
    if (!ctx.shells) throw new ToolError('Error: background commands cannot run in this session.');
    let filter: RegExp | undefined;
    try {
      filter = args.filter === undefined ? undefined : new RegExp(args.filter);
    } catch (err) {
      throw new ToolError(`Error: filter is not a regular expression: ${(err as Error).message}`);
    }
    try {
      const read = await ctx.shells.read(args.bash_id, { waitMs: args.wait_ms, signal: ctx.signal });
      const output = read.text.endsWith('\n') ? read.text.slice(0, -1) : read.text;
      const lines = output === '' ? [] : output.split('\n').filter((line) => !filter || filter.test(line));
      const dropped = read.skipped > 0 ? [fill(toolConfig.shells.texts.dropped, { bytes: read.skipped })] : [];
      return { kind: 'text', body: [...dropped, ...lines, describeShell(read.shell)].join('\n') };
    } catch (err) {
      if (err instanceof UnknownShell) throw new ToolError(err.message);
      throw err;
    }
  },
};
