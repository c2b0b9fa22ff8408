import { z } from 'zod';
import type { JsonSchema } from '../types.js';

/**
 * A tool's arguments, declared once with zod: the type its `run` takes (`z.infer`) and the JSON
 * schema the model is shown and calls are validated against (validate.ts) both come from here.
 *
 * The schema is zod's (`z.toJSONSchema`, input side) put in the form the tools have always sent:
 * only the subset validate.ts knows, keys in one order (type, minimum, enum, description, items,
 * properties, required), no `$schema`. Those bytes are part of every request's prefix, so they may
 * not drift with zod's own output (tools/fixtures/parameters.json pins them). Declare objects with
 * `z.strictObject`: validate.ts refuses unknown properties, and the declaration says so.
 */
export function toolParameters(args: z.ZodObject): JsonSchema {
  return subset(z.toJSONSchema(args, { io: 'input', unrepresentable: 'throw' }) as Record<string, unknown>, 'arguments');
}

/** zod's bounds for `z.int()`: implied by "integer" in JSON (validate.ts checks Number.isInteger). */
const SAFE_BOUNDS: Record<string, number> = { minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };

const TYPES = new Set(['object', 'string', 'integer', 'number', 'boolean', 'array']);

function subset(node: Record<string, unknown>, at: string): JsonSchema {
  const known = new Set(['$schema', 'type', 'minimum', 'maximum', 'enum', 'description', 'items', 'properties', 'required', 'additionalProperties']);
  for (const key of Object.keys(node)) {
    if (!known.has(key)) throw new Error(`${at}: "${key}" is not in the schema subset Keel validates`);
  }
  if (typeof node.type !== 'string' || !TYPES.has(node.type)) throw new Error(`${at}: type ${JSON.stringify(node.type)} is not in the schema subset Keel validates`);
  if (node.type === 'object' && node.additionalProperties !== false) throw new Error(`${at}: declare objects with z.strictObject`);
  if (node.maximum !== undefined && node.maximum !== SAFE_BOUNDS.maximum) throw new Error(`${at}: "maximum" is not in the schema subset Keel validates`);
  const out: Record<string, unknown> = { type: node.type };
  if (node.minimum !== undefined && node.minimum !== SAFE_BOUNDS.minimum) out.minimum = node.minimum;
  if (node.enum !== undefined) out.enum = node.enum;
  if (node.description !== undefined) out.description = node.description;
  if (node.items !== undefined) out.items = subset(node.items as Record<string, unknown>, `${at}[]`);
  if (node.properties !== undefined) {
    out.properties = Object.fromEntries(
      Object.entries(node.properties as Record<string, Record<string, unknown>>).map(([k, v]) => [k, subset(v, `"${k}"`)]),
    );
  }
  if (Array.isArray(node.required) && node.required.length > 0) out.required = node.required;
  return out as unknown as JsonSchema;
}
