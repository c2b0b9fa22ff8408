/**
 * What an approval shows, made visible: control, escape, bidi and invisible characters are
 * written as a name in ⟨⟩ (`⟨ESC⟩`, `⟨BS⟩`, `⟨CR⟩`, `⟨U+202E⟩`), so a terminal, the app and the
 * browser show every character that will run and none can move the cursor, erase, reorder or
 * hide what is around it (`bash evil.sh⟨CR⟩ls -la` never shows as `ls -la`). Line breaks stay
 * (each line is shown) and so do tabs. The CLI and the renderer both call this one function.
 * A leaf module: no imports (the contract re-exports it for the page).
 */

/** One piece of shown text: as it is, or a made-visible character (`escaped`, for styling). */
export interface VisiblePart {
  text: string;
  escaped: boolean;
}

const C0 = ['NUL', 'SOH', 'STX', 'ETX', 'EOT', 'ENQ', 'ACK', 'BEL', 'BS', 'HT', 'LF', 'VT', 'FF', 'CR', 'SO', 'SI',
  'DLE', 'DC1', 'DC2', 'DC3', 'DC4', 'NAK', 'SYN', 'ETB', 'CAN', 'EM', 'SUB', 'ESC', 'FS', 'GS', 'RS', 'US'];

/**
 * Controls (C0 but line feed and tab, DEL, C1), format characters (bidi embeddings, overrides and
 * isolates, zero-width spaces and joiners, the BOM, tag characters), line and paragraph
 * separators, spaces other than the plain one, surrogates, private-use and unassigned code
 * points, and the Hangul fillers that draw as blanks.
 */
const HIDDEN = /(?![\n\t])[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]|(?! )\p{Zs}|[\u115F\u1160\u3164\uFFA0]/gu;

/** How one hidden character is written. */
export function visibleName(ch: string): string {
  const code = ch.codePointAt(0)!;
  if (code < 0x20) return `⟨${C0[code]}⟩`;
  if (code === 0x7f) return '⟨DEL⟩';
  return `⟨U+${code.toString(16).toUpperCase().padStart(4, '0')}⟩`;
}

/** `text` split into shown pieces, the hidden characters named. */
export function visibleParts(text: string): VisiblePart[] {
  const parts: VisiblePart[] = [];
  let last = 0;
  for (const m of text.matchAll(HIDDEN)) {
    if (m.index > last) parts.push({ text: text.slice(last, m.index), escaped: false });
    parts.push({ text: visibleName(m[0]), escaped: true });
    last = m.index + m[0].length;
  }
  if (last < text.length || parts.length === 0) parts.push({ text: text.slice(last), escaped: false });
  return parts;
}

/** `text` with every hidden character named: what the terminal prints. */
export function visibleText(text: string): string {
  return text.replace(HIDDEN, visibleName);
}
