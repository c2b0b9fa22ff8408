import { z } from 'zod';
import { SESSION_ONLY } from './access.js';
import { toolParameters } from './schema.js';
import { describeKill, UnknownShell } from './shells.js';
import { ToolError, type Tool } from './types.js';

const Args = z.strictObject({
  shell_id: z.string().describe('The background shell to stop (bg1).'),
});
type Args = z.infer<typeof Args>;

/**
 * Stops a background shell of the session: SIGTERM to everything it started, SIGKILL after the
 * grace period. It touches nothing but a process the session itself started, so it asks no one.
 */
export const killShellTool: Tool<Args> = {
  name: 'kill_shell',
  access: SESSION_ONLY,
  parameters: toolParameters(Args),
  async run(args, ctx) {
    if (!ctx.shells) throw new ToolError('Error: background commands cannot run in this session.');
    try {
      return { kind: 'text', body: describeKill(await ctx.shells.kill(args.shell_id)) };
    } catch (err) {
      if (err instanceof UnknownShell) throw new ToolError(err.message);
      throw err;
    }
  },
};
