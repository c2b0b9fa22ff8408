import type { JsonSchema } from './types.js';

/**
 * Checks a model's tool arguments against the tool's schema (the subset the tools use).
 * Returns a readable problem, or undefined when the arguments fit. Unknown properties are refused
 * too: a misspelt optional argument would otherwise be ignored silently. Only own properties
 * count, on both sides: `__proto__`, `constructor` or `toString` are not in any schema just
 * because every object inherits them, and a required argument must be the value's own.
 */
export function validateArgs(schema: JsonSchema, value: unknown, at = 'arguments'): string | undefined {
  switch (schema.type) {
    case 'object': {
      if (!value || typeof value !== 'object' || Array.isArray(value)) return `${at} must be an object`;
      const obj = value as Record<string, unknown>;
      for (const key of schema.required ?? []) {
        if (!Object.hasOwn(obj, key) || obj[key] === undefined) return `${at} is missing "${key}"`;
      }
      for (const [key, v] of Object.entries(obj)) {
        const prop = schema.properties && Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
        if (!prop) return `${at} has an unknown property "${key}"`;
        if (v === undefined) continue;
        const problem = validateArgs(prop, v, `"${key}"`);
        if (problem) return problem;
      }
      return undefined;
    }
    case 'array': {
      if (!Array.isArray(value)) return `${at} must be an array`;
      for (let i = 0; i < value.length; i++) {
        const problem = schema.items && validateArgs(schema.items, value[i], `${at}[${i}]`);
        if (problem) return problem;
      }
      return undefined;
    }
    case 'string':
      if (typeof value !== 'string') return `${at} must be a string`;
      if (schema.enum && !schema.enum.includes(value)) return `${at} must be one of ${schema.enum.join(', ')}`;
      return undefined;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) return `${at} must be an integer`;
      if (schema.minimum !== undefined && value < schema.minimum) return `${at} must be at least ${schema.minimum}`;
      return undefined;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return `${at} must be a number`;
      return undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `${at} must be true or false`;
    default:
      return `${at} has no schema Keel knows`;
  }
}
