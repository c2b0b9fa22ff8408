import { CONTRACT, type KeelMethod } from '../contract.js';
import { validateArgs } from '../core/validate.js';

/**
 * Checks a call from the UI before anything runs: a known method, and arguments of the contract's
 * shapes (only trailing arguments the contract marks optional may be left out). Whatever reaches
 * main from a window or a socket is untrusted input. Returns the method, or throws a readable error.
 */
export function checkCall(method: unknown, args: unknown): KeelMethod {
  if (typeof method !== 'string' || !Object.hasOwn(CONTRACT, method)) throw new Error(`Unknown method ${JSON.stringify(method)}.`);
  const { args: shapes, optionalFrom: required } = CONTRACT[method as KeelMethod];
  if (!Array.isArray(args) || args.length > shapes.length) throw new Error(`${method} takes at most ${shapes.length} arguments.`);
  args.forEach((arg, i) => {
    if (i >= required && (arg === undefined || arg === null)) return;
    const problem = validateArgs(shapes[i], arg, `argument ${i + 1}`);
    if (problem) throw new Error(`${method}: ${problem}.`);
  });
  if (args.length < required) throw new Error(`${method} needs ${required} argument${required === 1 ? '' : 's'}.`);
  return method as KeelMethod;
}
