import { z } from 'zod';
import { readDecision } from '../approvalAnswers.js';
import { formatPlan } from './planWrite.js';
import { toolParameters } from './schema.js';
import type { Tool } from './types.js';
import { SESSION_ONLY } from './access.js';

const Args = z.strictObject({ summary: z.string() });
type Args = z.infer<typeof Args>;

/** The `unavailable` text (spec §10.4): offered from the start, answered when plan mode is not on. */
export const PLAN_SUBMIT_UNAVAILABLE = 'plan_submit is only available in plan mode; the session is not in plan mode now.';

/**
 * In plan mode, the plan goes to the person for approval and the answer says what they decided.
 * Approving ends plan mode: "allow" switches to ask (each change still approved), "allow-session"
 * to accept-edits. A plan not approved leaves the session in plan mode.
 */
export const planSubmitTool: Tool<Args> = {
  name: 'plan_submit',
  access: SESSION_ONLY,
  parameters: toolParameters(Args),
  async run(args, ctx) {
    if (ctx.mode !== 'plan') return { kind: 'text', body: PLAN_SUBMIT_UNAVAILABLE };
    const plan = ctx.plan.length > 0 ? formatPlan(ctx.plan) : '(no plan items were written)';
    const decision = await ctx.askPerson?.(`${args.summary}\n\n${plan}`, 'the plan is ready for approval');
    if (decision === undefined) return { kind: 'text', body: 'No one can approve the plan here; the session stays in plan mode.' };
    const { answer, said } = readDecision(decision);
    if (answer === 'deny') {
      return { kind: 'text', body: `The person did not approve the plan. The session stays in plan mode: revise the plan and submit it again.${said}` };
    }
    const mode = answer === 'allow-session' ? 'accept-edits' : 'ask';
    ctx.setMode?.(mode);
    return { kind: 'text', body: `The person approved the plan. The permission mode is now ${mode}: carry it out.` };
  },
};
