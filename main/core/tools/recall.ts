import { z } from 'zod';
import { contextConfig } from '../config.js';
import { parseId } from '../hygiene/ids.js';
import { toolParameters } from './schema.js';
import type { Tool } from './types.js';
import { SESSION_ONLY } from './access.js';

const Args = z.strictObject({
  id: z.string().describe('The result id, e.g. #0012 (the # may be left out).'),
  offset: z.int().min(1).describe('First line, 1-based (default 1).').optional(),
  limit: z.int().min(1).describe('Number of lines (default and max 2000).').optional(),
});
type Args = z.infer<typeof Args>;

/** Shows a stored result again, in full, in a window of `recall.max_lines` lines from `offset`. */
export const recallTool: Tool<Args> = {
  name: 'recall',
  access: SESSION_ONLY,
  parameters: toolParameters(Args),
  async run(args, ctx) {
    const { number, label } = parseId(String(args.id));
    const body = number === undefined ? undefined : ctx.storedBody(number);
    return {
      kind: 'recall',
      label,
      target: body === undefined || number === undefined ? undefined : { number, body },
      offset: args.offset ?? 1,
      limit: Math.min(args.limit ?? contextConfig.recall.max_lines, contextConfig.recall.max_lines),
    };
  },
};
