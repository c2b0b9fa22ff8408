import { PLAN_STATUSES, type PlanItem, type Tool } from './types.js';

interface Args { items: { text: string; status?: PlanItem['status'] }[] }

export const STATUSES = PLAN_STATUSES;

/** The plan as the model and the person see it: `1. [ ] text`, `[~]` doing, `[x]` done. */
export function formatPlan(items: readonly PlanItem[]): string {
  const mark = { todo: '[ ]', doing: '[~]', done: '[x]' } satisfies Record<PlanItem['status'], string>;
  return items.map((item, i) => `${i + 1}. ${mark[item.status]} ${item.text}`).join('\n');
}

/** Replaces the session's plan with these items. */
export const planWriteTool: Tool<Args> = {
  name: 'plan_write',
  parameters: {
    type: 'object',
    properties: {
      items: {
        type: 'array',
        items: {
          type: 'object',
          properties: { text: { type: 'string' }, status: { type: 'string', enum: STATUSES } },
          required: ['text'],
        },
      },
    },
    required: ['items'],
  },
  async run(args, ctx) {
    const plan = args.items.map((item) => ({ text: item.text, status: item.status ?? 'todo' }));
    ctx.setPlan(plan);
    return { kind: 'text', body: formatPlan(plan) };
  },
};
