import { z } from 'zod';
import { fill, toolConfig } from '../config.js';
import { SESSION_ONLY } from './access.js';
import { toolParameters } from './schema.js';
import { describeShell, UnknownShell } from './shells.js';
import { ToolError, type Tool } from './types.js';

const Args = z.strictObject({
  shell_id: z.string().describe('The background shell to stop (bg1).'),
});
type Args = z.infer<typeof Args>;

const texts = toolConfig.shells.texts;

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
      const { shell, forced, already } = await ctx.shells.kill(args.shell_id);
      const body = already ? fill(texts.already_ended, { id: shell.id, status: describeShell(shell) })
        : forced ? fill(texts.killed_forced, { id: shell.id, ms: toolConfig.shells.kill_grace_ms })
          : fill(texts.killed, { id: shell.id });
      return { kind: 'text', body };
    } catch (err) {
      if (err instanceof UnknownShell) throw new ToolError(err.message);
      throw err;
    }
  },
};
