import { describe, expect, it } from 'vitest';
import { validateArgs } from './validate.js';

describe('arguments', () => {
  const schema = {
    type: 'object', required: ['path'],
    properties: { path: { type: 'string' }, limit: { type: 'integer', minimum: 1 }, items: { type: 'array', items: { type: 'string' } } },
  } as const;

  it('accepts fitting arguments and explains what does not fit', () => {
    expect(validateArgs(schema, { path: 'a', limit: 3 })).toBeUndefined();
    expect(validateArgs(schema, { limit: 3 })).toBe('arguments is missing "path"');
    expect(validateArgs(schema, { path: 1 })).toBe('"path" must be a string');
    expect(validateArgs(schema, { path: 'a', limit: 0 })).toBe('"limit" must be at least 1');
    expect(validateArgs(schema, { path: 'a', limit: 1.5 })).toBe('"limit" must be an integer');
    expect(validateArgs(schema, { path: 'a', lmit: 2 })).toBe('arguments has an unknown property "lmit"');
    expect(validateArgs(schema, { path: 'a', items: ['x', 2] })).toBe('"items"[1] must be a string');
    expect(validateArgs(schema, '{"path":"a"}')).toBe('arguments must be an object');
  });
});
