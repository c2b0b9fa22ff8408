import { describe, expect, it } from 'vitest';
import { splitIds } from './linkify.js';

const ids = (text: string) => splitIds(text).filter((s) => s.kind === 'id').map((s) => (s.kind === 'id' ? s.id : ''));

describe('splitIds', () => {
  it('finds four-digit and longer ids', () => {
    expect(ids('[#0012 src/app.ts lines 1-200 of 340 sha 1c9e04ab]')).toEqual(['#0012']);
    expect(ids('[#10000] Same result as #ffff.')).toEqual(['#10000', '#ffff']);
    expect(ids('Fixed in #001a; see (#0012), #0018, and #0019.')).toEqual(['#001a', '#0012', '#0018', '#0019']);
  });

  it('finds the ids of the spec’s sentences', () => {
    expect(ids('Unchanged since #0012, which already shows lines 1-200.')).toEqual(['#0012']);
    expect(ids('[#0027] Same result as #0026.')).toEqual(['#0027', '#0026']);
    expect(ids('[1234 lines elided, full output #0020]')).toEqual(['#0020']);
  });

  it('does not take #abc, ids glued to words, or longer words', () => {
    expect(ids('a colour #abc and issue#0012 and #0012x and #00zz and ##0012 and &#0012;')).toEqual([]);
    expect(ids('#ABCD is not lowercase hex')).toEqual([]);
  });

  it('keeps the text: the segments join back to it', () => {
    const text = 'Read #0012 then #0013.\n[#0014]';
    expect(splitIds(text).map((s) => (s.kind === 'id' ? s.id : s.text)).join('')).toBe(text);
  });
});
