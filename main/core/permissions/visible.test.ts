import { describe, expect, it } from 'vitest';
import { DISGUISED } from '../../../test/disguised.js';
import { visibleParts, visibleText } from './visible.js';


describe('what an approval shows', () => {
  it.each(DISGUISED)('%j is shown as %s', (raw, shown) => {
    expect(visibleText(raw)).toBe(shown);
  });

  it('keeps plain text, line breaks, tabs and letters of any script as they are', () => {
    for (const text of ['npm test && git status', 'a\nb\tc', 'échec 日本語 😀 Ωmega', 'שלום', '']) expect(visibleText(text)).toBe(text);
  });

  it('marks each named character as a part of its own, for the page to style', () => {
    expect(visibleParts('ls\x1b[2K x')).toEqual([{ text: 'ls', escaped: false }, { text: '⟨ESC⟩', escaped: true }, { text: '[2K x', escaped: false }]);
    expect(visibleParts('')).toEqual([{ text: '', escaped: false }]);
  });

});
