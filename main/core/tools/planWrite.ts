import { z } from 'zod';
import { toolParameters } from './schema.js';
import { PLAN_STATUSES, type PlanItem } from '../types.js';
import type { Tool } from './types.js';
import { SESSION_ONLY } from './access.js';

export const STATUSES = PLAN_STATUSES;

const Args = z.strictObject({
  items: z.array(z.strictObject({ text: z.string(), status: z.enum(STATUSES).optional() })),
});
type Args = z.infer<typeof Args>;

/** The plan as the model and the person see it: `1. [ ] text`, `[~]` doing, `[x]` done. */
export function formatPlan(items: readonly PlanItem[]): string {
  const mark = { todo: '[ ]', doing: '[~]', done: '[x]' } satisfies Record<PlanItem['status'], string>;
  return items.map((item, i) => `${i + 1}. ${mark[item.status]} ${item.text}`).join('\n');
}

/** Replaces the session's plan with these items. */
export const planWriteTool: Tool<Args> = {
  name: 'plan_write',
  access: SESSION_ONLY,
  parameters: toolParameters(Args),
  async run(args, ctx) {
    const plan = args.items.map((item) => ({ text: item.text, status: item.status ?? 'todo' }));
    ctx.setPlan(plan);
    return { kind: 'text', body: formatPlan(plan) };
  },
};
