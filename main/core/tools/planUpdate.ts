import { formatPlan, STATUSES } from './planWrite.js';
import { ToolError, type PlanItem, type Tool } from './types.js';

interface Args { index: number; status?: PlanItem['status']; text?: string }

/** Changes one item of the plan (1-based) and answers the whole plan. */
export const planUpdateTool: Tool<Args> = {
  name: 'plan_update',
  parameters: {
    type: 'object',
    properties: {
      index: { type: 'integer', minimum: 1 },
      status: { type: 'string', enum: STATUSES },
      text: { type: 'string' },
    },
    required: ['index'],
  },
  async run(args, ctx) {
    const item = ctx.plan[args.index - 1];
    if (!item) throw new ToolError(`Error: the plan has ${ctx.plan.length} items; there is no item ${args.index}.`);
    const plan = ctx.plan.map((p, i) => (i === args.index - 1 ? { text: args.text ?? p.text, status: args.status ?? p.status } : p));
    ctx.setPlan(plan);
    return { kind: 'text', body: formatPlan(plan) };
  },
};
