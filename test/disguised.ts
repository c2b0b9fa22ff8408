/** Attack texts for approvals (issue 23, class 2), each with how it must be shown: main/core/permissions/visible.ts. */
/** Commands that a raw terminal would show as something else, and what an approval shows instead. */
export const DISGUISED: [string, string][] = [
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
