/**
 * How one contract method is written: the JSON schemas of its arguments (checked in main before
 * anything runs, since whatever reaches main from a window or a socket is untrusted) and its
 * TypeScript signature (parameter names, the reply's type). The compiler reads each schema's type
 * off the schema and refuses a signature that disagrees with it, so the two cannot drift:
 *
 *   send: takes(SESSION_ID, TEXT).as<(id: number, text: string) => Promise<void>>(),
 *
 * Values only from leaf modules: this file ends up in the sandboxed preload script and the page.
 */
import type { JsonSchema } from '../core/tools/types.js';

/** An argument that may be left out (undefined or null); only trailing arguments may be. */
export interface Optional<S extends JsonSchema = JsonSchema> { readonly optional: S }

export function optional<const S extends JsonSchema>(shape: S): Optional<S> {
  return { optional: shape };
}

/** The TypeScript type of a value that passes `validateArgs(S, value)`. */
export type TypeOf<S> =
  S extends { enum: readonly (infer E)[] } ? E
  : S extends { type: 'string' } ? string
  : S extends { type: 'integer' | 'number' } ? number
  : S extends { type: 'boolean' } ? boolean
  : S extends { type: 'array'; items: infer I } ? TypeOf<I>[]
  : S extends { type: 'object'; properties: infer P } ? ObjectOf<P, S extends { required: readonly (infer R)[] } ? R : never>
  : unknown;

type ObjectOf<P, R> = Flat<
  { [K in keyof P as K extends R ? K : never]: TypeOf<P[K]> } & { [K in keyof P as K extends R ? never : K]?: TypeOf<P[K]> }
>;
type Flat<T> = { [K in keyof T]: T[K] };

type Given<S> = S extends readonly [infer H, ...infer T] ? (H extends Optional ? [] : [TypeOf<H>, ...Given<T>]) : [];
type Tail<S> = S extends readonly [infer H, ...infer T] ? (H extends Optional<infer O> ? [TypeOf<O>, ...Tail<T>] : Tail<T>) : [];
/** The argument list the schemas accept: the required ones, then the optional ones. */
export type ArgsOf<S> = [...Given<S>, ...Partial<Tail<S>>];

type Call = (...args: never[]) => Promise<unknown>;
/** `true` when a signature takes exactly the arguments the schemas accept (no more, no fewer, same types). */
type Agrees<F, S> = F extends (...args: infer P) => Promise<unknown>
  ? [P] extends [ArgsOf<S>] ? ([ArgsOf<S>] extends [P] ? true : false) : false
  : false;

/** One method of the contract. `signature` is never set: it only carries the type. */
export interface Method<F extends Call = Call> {
  /** Each argument's schema, in order. */
  readonly args: readonly JsonSchema[];
  /** Arguments from this index on may be left out; every other one is required. */
  readonly optionalFrom: number;
  readonly signature?: F;
}

/** Starts a method with its arguments' schemas; `.as<Signature>()` gives it its TypeScript signature. */
export function takes<const S extends readonly (JsonSchema | Optional)[]>(...shapes: S) {
  const firstOptional = shapes.findIndex((s) => 'optional' in s);
  const optionalFrom = firstOptional < 0 ? shapes.length : firstOptional;
  if (shapes.slice(optionalFrom).some((s) => !('optional' in s))) throw new Error('Only trailing arguments may be optional.');
  const args = shapes.map((s) => ('optional' in s ? s.optional : s));
  return {
    as<F extends Call>(..._check: Agrees<F, S> extends true ? [] : [error: 'the signature disagrees with the argument schemas', args: ArgsOf<S>]): Method<F> {
      return { args, optionalFrom };
    },
  };
}

/** The signature a method carries. */
export type SignatureOf<M> = M extends Method<infer F> ? F : never;
