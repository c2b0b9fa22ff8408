import { describe, expect, it } from 'vitest';
import { formatId, parseId } from './ids.js';
import { stableJson } from './stableJson.js';

describe('ids (§1)', () => {
  it('formats lowercase hex with at least four digits', () => {
    expect([1, 10, 15, 16, 0xffff, 0x10000].map(formatId)).toEqual(['#0001', '#000a', '#000f', '#0010', '#ffff', '#10000']);
  });

  it('reads #1, 1, #0001 and 0001 as the same id, and echoes the label as given', () => {
    expect(['#1', '1', '#0001', '0001'].map((s) => parseId(s).number)).toEqual([1, 1, 1, 1]);
    expect(parseId('ffff')).toEqual({ number: 0xffff, label: '#ffff' });
    expect(parseId('zz')).toEqual({ label: '#zz' });
    expect(parseId('#0').number).toBeUndefined();
  });
});

describe('stable JSON', () => {
  it('compares arguments as JSON with sorted keys at every depth', () => {
    expect(stableJson({ b: 1, a: { d: [{ y: 1, x: 2 }], c: 3 } })).toBe('{"a":{"c":3,"d":[{"x":2,"y":1}]},"b":1}');
  });
});
