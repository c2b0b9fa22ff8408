import { z } from 'zod';
import { formatPlan, STATUSES } from './planWrite.js';
import { toolParameters } from './schema.js';
import { ToolError, type Tool } from './types.js';
import { SESSION_ONLY } from './access.js';

const Args = z.strictObject({
  index: z.int().min(1),
  status: z.enum(STATUSES).optional(),
  text: z.string().optional(),
});
type Args = z.infer<typeof Args>;

/** Changes one item of the plan (1-based) and answers the whole plan. */
export const planUpdateTool: Tool<Args> = {
  name: 'plan_update',
  access: SESSION_ONLY,
  parameters: toolParameters(Args),
  async run(args, ctx) {
    const item = ctx.plan[args.index - 1];
    if (!item) throw new ToolError(`Error: the plan has ${ctx.plan.length} items; there is no item ${args.index}.`);
    const plan = ctx.plan.map((p, i) => (i === args.index - 1 ? { text: args.text ?? p.text, status: args.status ?? p.status } : p));
    ctx.setPlan(plan);
    return { kind: 'text', body: formatPlan(plan) };
  },
};
