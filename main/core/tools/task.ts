import { z } from 'zod';
import { subagentsConfig } from '../config.js';
import { SESSION_ONLY } from './access.js';
import { toolParameters } from './schema.js';
import { ToolError, type Tool } from './types.js';

const Args = z.strictObject({
  description: z.string().describe('What the subagent is for, in a few words (the person sees it).'),
  prompt: z.string().describe('The whole task: the subagent sees nothing else of this conversation.'),
  subagent_type: z.string().describe('The agent to run it (as defined in .keel/agents or .claude/agents); the general read-only one when absent.').optional(),
});
type Args = z.infer<typeof Args>;

/** The attachment a task's result carries: the subagent's session, its transcript one click away (the model never sees it). */
export const SUBAGENT_MIME = 'application/vnd.keel.subagent+json';

/**
 * Hands a task to a subagent: a session of its own, with its own context and ids, the tools its
 * agent is given and the parent's permission mode; its final answer is the result (capped like any,
 * recallable in full). It asks no one itself: each call the subagent makes goes through its own gate.
 */
export const taskTool: Tool<Args> = {
  name: 'task',
  access: SESSION_ONLY,
  concurrent: true,
  parameters: toolParameters(Args),
  async run(args, ctx) {
    if (!ctx.subagents) throw new ToolError(subagentsConfig.texts.none);
    const { answer, sessionId } = await ctx.subagents.run({ description: args.description, prompt: args.prompt, agent: args.subagent_type }, ctx.signal);
    return {
      kind: 'text', body: answer === '' ? subagentsConfig.texts.empty : answer,
      attachments: [{ mimeType: SUBAGENT_MIME, data: Buffer.from(JSON.stringify({ sessionId })) }],
    };
  },
};
