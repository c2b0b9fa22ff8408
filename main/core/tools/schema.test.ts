import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validateArgs } from '../validate.js';
import { toolParameters } from './schema.js';

describe('toolParameters', () => {
  it('writes the subset in the fixed key order, whatever order zod writes it in', () => {
    const args = z.strictObject({
      n: z.int().min(1).describe('A count.').optional(),
      list: z.array(z.strictObject({ s: z.enum(['a', 'b']) })).describe('Items.'),
    });
    expect(JSON.stringify(toolParameters(args))).toBe(
      '{"type":"object","properties":{"n":{"type":"integer","minimum":1,"description":"A count."},'
      + '"list":{"type":"array","description":"Items.","items":{"type":"object","properties":{"s":{"type":"string","enum":["a","b"]}},"required":["s"]}}},'
      + '"required":["list"]}',
    );
  });

  it('refuses what validate.ts would not check, rather than drop it silently', () => {
    expect(() => toolParameters(z.object({ a: z.string() }))).toThrow('declare objects with z.strictObject');
    expect(() => toolParameters(z.strictObject({ a: z.string().min(2) }))).toThrow('"minLength" is not in the schema subset');
    expect(() => toolParameters(z.strictObject({ a: z.int().max(5) }))).toThrow('"maximum" is not in the schema subset');
    expect(() => toolParameters(z.strictObject({ a: z.string().nullable() }))).toThrow('"a"');
  });

  it('gives validate.ts a schema that judges arguments the way the declaration does', () => {
    const args = z.strictObject({ path: z.string(), limit: z.int().min(1).optional(), tags: z.array(z.string()).optional() });
    const schema = toolParameters(args);
    const cases: unknown[] = [
      { path: 'a' }, { path: 'a', limit: 2 }, { path: 'a', limit: 0 }, { path: 'a', limit: 1.5 }, { limit: 2 },
      { path: 1 }, { path: 'a', extra: true }, { path: 'a', tags: ['x', 2] }, { path: 'a', tags: [] }, 'a', null, [],
    ];
    for (const value of cases) expect([value, validateArgs(schema, value) === undefined]).toEqual([value, args.safeParse(value).success]);
  });
});
