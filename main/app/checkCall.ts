import { METHOD_ARGS, OPTIONAL_FROM, type KeelMethod } from '../contract.js';
import { validateArgs } from '../core/validate.js';
import type { JsonSchema } from '../core/tools/types.js';

/**
 * Checks a call from the UI before anything runs: a known method, and arguments of the contract's
 * shapes (only those OPTIONAL_FROM names may be left out). Whatever reaches main from a window or a socket is
 * untrusted input. Returns the method, or throws a readable error.
 */
export function checkCall(method: unknown, args: unknown): KeelMethod {
  if (typeof method !== 'string' || !Object.hasOwn(METHOD_ARGS, method)) throw new Error(`Unknown method ${JSON.stringify(method)}.`);
  const shapes = METHOD_ARGS[method as KeelMethod] as readonly JsonSchema[];
  if (!Array.isArray(args) || args.length > shapes.length) throw new Error(`${method} takes at most ${shapes.length} arguments.`);
  const required = OPTIONAL_FROM[method as KeelMethod] ?? shapes.length;
  args.forEach((arg, i) => {
    if (i >= required && (arg === undefined || arg === null)) return;
    const problem = validateArgs(shapes[i], arg, `argument ${i + 1}`);
    if (problem) throw new Error(`${method}: ${problem}.`);
  });
  if (args.length < required) throw new Error(`${method} needs ${required} argument${required === 1 ? '' : 's'}.`);
  return method as KeelMethod;
}
