import { describe, expect, it } from 'vitest';
import { capBody, elidedMark } from './cap.js';

const lines = (n: number, width = 3) => Array.from({ length: n }, (_, i) => String(i + 1).padStart(width, '0'));

describe('capBody (spec §3)', () => {
  it('leaves a body within both limits as it is', () => {
    const body = lines(400).join('\n');
    expect(capBody(body, '#0001')).toBe(body);
  });

  it('keeps 200 head lines and 100 tail lines of a long output, with the elided line between', () => {
    const all = lines(1000, 4);
    const out = capBody(all.join('\n'), '#0007').split('\n');
    expect(out).toHaveLength(301);
    expect(out.slice(0, 200)).toEqual(all.slice(0, 200));
    expect(out[200]).toBe('[700 lines elided, full output #0007]');
    expect(out.slice(201)).toEqual(all.slice(900));
  });

  it('caps by characters: whole lines within head_chars and tail_chars', () => {
    const all = Array.from({ length: 50 }, (_, i) => `${i}`.padEnd(999, 'x'));
    const out = capBody(all.join('\n'), '#0002').split('\n');
    // 20 lines of 999 characters and 19 breaks = 19,999 ≤ 20,000; a 21st would not fit.
    expect(out.slice(0, 20)).toEqual(all.slice(0, 20));
    expect(out[20]).toBe('[20 lines elided, full output #0002]');
    expect(out.slice(21)).toEqual(all.slice(40));
  });

  it('cuts a first line longer than head_chars and follows it with the elided line', () => {
    const first = 'a'.repeat(45_000); // over max_chars, so the body is capped
    const out = capBody(`${first}\nsecond\nthird`, '#0003').split('\n');
    expect(out[0]).toBe('a'.repeat(20_000) + ' […cut]');
    expect(out[1]).toBe('[0 lines elided, full output #0003]');
    expect(out.slice(2)).toEqual(['second', 'third']);
  });

  it('may leave the tail empty when the last line alone is longer than tail_chars', () => {
    const body = ['short', 'b'.repeat(15_000), 'c'.repeat(30_000)].join('\n');
    const out = capBody(body, '#0004').split('\n');
    expect(out).toEqual(['short', 'b'.repeat(15_000), '[1 lines elided, full output #0004]']);
  });
});

describe('elidedMark: where a capped result’s elided line stands', () => {
  const body = Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`).join('\n');

  it('finds the line capBody wrote, with the count of lines it stands for', () => {
    const inserted = `[#0007]\n${capBody(body, '#0007')}`;
    const mark = elidedMark(inserted, body, '#0007')!;
    expect(inserted.split('\n')[mark.line]).toBe(`[${mark.count} lines elided, full output #0007]`);
    expect(mark.count).toBe(1000 - (inserted.split('\n').length - 2));
  });

  it('takes no line of an uncapped result for one, even one that reads like it', () => {
    const text = 'a\n[2 lines elided, full output #0003]\nb';
    expect(elidedMark(`[#0003]\n${text}`, text, '#0003')).toBeUndefined();
    expect(elidedMark(`[#0003]\n${capBody(body, '#0003')}`, body, '#0004')).toBeUndefined();
  });
});
