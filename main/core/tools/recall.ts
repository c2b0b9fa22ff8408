import { contextConfig } from '../config.js';
import { parseId } from '../hygiene/ids.js';
import type { Tool } from './types.js';

interface Args { id: string; offset?: number; limit?: number }

/** Shows a stored result again, in full, in a window of `recall.max_lines` lines from `offset`. */
export const recallTool: Tool<Args> = {
  name: 'recall',
  parameters: {
    type: 'object',
    properties: {
      id: { type: 'string', description: 'The result id, e.g. #0012 (the # may be left out).' },
      offset: { type: 'integer', minimum: 1, description: 'First line, 1-based (default 1).' },
      limit: { type: 'integer', minimum: 1, description: 'Number of lines (default and max 2000).' },
    },
    required: ['id'],
  },
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
