import { ToolError, type Tool } from './types.js';

interface Args { summary: string }

/** The `unavailable` text (spec §10.4): offered from the start, answered when plan mode is not on. */
export const PLAN_SUBMIT_UNAVAILABLE = 'plan_submit is only available in plan mode; the session is not in plan mode now.';

/**
 * Submits the plan for the person's approval. Only in plan mode; the approval flow itself belongs
 * to the permission gate (trust issue), which is not part of this core yet.
 */
export const planSubmitTool: Tool<Args> = {
  name: 'plan_submit',
  parameters: {
    type: 'object',
    properties: { summary: { type: 'string' } },
    required: ['summary'],
  },
  async run(_args, ctx) {
    if (ctx.mode !== 'plan') return { kind: 'text', body: PLAN_SUBMIT_UNAVAILABLE };
    throw new ToolError('Error: approving a plan needs the person, and this session has no approval channel yet.');
  },
};
