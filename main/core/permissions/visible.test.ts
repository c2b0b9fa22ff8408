import { describe, expect, it } from 'vitest';
import { describeApproval } from '../../cli/commands/describeApproval.js';
import { visibleParts, visibleText } from './visible.js';

/** Commands that a raw terminal would show as something else. */
const DISGUISED: [string, string][] = [
  ['bash evil.sh\rls -la', 'bash evil.sh⟨CR⟩ls -la'],
  ['bash evil.sh\b\b\b\b\b\b\b\b\b\b\b\bls -la   ', `bash evil.sh${'⟨BS⟩'.repeat(12)}ls -la   `],
  ['bash evil.sh\x1b[2K\x1b[1Gls -la', 'bash evil.sh⟨ESC⟩[2K⟨ESC⟩[1Gls -la'],
  ['echo \u202Ehs.live\u202C', 'echo ⟨U+202E⟩hs.live⟨U+202C⟩'],
  ['rm -rf \u2066~\u2069 #', 'rm -rf ⟨U+2066⟩~⟨U+2069⟩ #'],
  ['ls\u200B -la', 'ls⟨U+200B⟩ -la'],
  ['ls\u00A0-la', 'ls⟨U+00A0⟩-la'],
  ['cat x\u009B2K', 'cat x⟨U+009B⟩2K'],
  ['echo \u{E0072}\u{E006D}', 'echo ⟨U+E0072⟩⟨U+E006D⟩'],
  ['printf x\x7f', 'printf x⟨DEL⟩'],
  ['a\u2028b', 'a⟨U+2028⟩b'],
  ['x\u3164y', 'x⟨U+3164⟩y'],
];

describe('what an approval shows', () => {
  it.each(DISGUISED)('%j is shown as %s', (raw, shown) => {
    expect(visibleText(raw)).toBe(shown);
    expect(describeApproval({ sessionId: 1, tool: 'bash', args: { command: raw }, paths: [], command: raw, preview: raw, reason: 'ask mode asks before commands' }))
      .toBe(`── bash needs your approval (ask mode asks before commands)\n$ ${shown}`);
  });

  it('keeps plain text, line breaks, tabs and letters of any script as they are', () => {
    for (const text of ['npm test && git status', 'a\nb\tc', 'échec 日本語 😀 Ωmega', 'שלום', '']) expect(visibleText(text)).toBe(text);
  });

  it('marks each named character as a part of its own, for the page to style', () => {
    expect(visibleParts('ls\x1b[2K x')).toEqual([{ text: 'ls', escaped: false }, { text: '⟨ESC⟩', escaped: true }, { text: '[2K x', escaped: false }]);
    expect(visibleParts('')).toEqual([{ text: '', escaped: false }]);
  });

  it('makes the paths, the reason and the diff of a file change visible in the terminal too', () => {
    const shown = describeApproval({
      sessionId: 1, tool: 'write', args: {}, paths: ['/w/a\u202Etxt.sh'], preview: '+echo \x1b]0;title\x07', reason: 'ask mode asks before edits',
    });
    expect(shown).toBe('── write needs your approval (ask mode asks before edits)\n/w/a⟨U+202E⟩txt.sh\n+echo ⟨ESC⟩]0;title⟨BEL⟩');
    expect(shown).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f\u202e]/);
  });
});
