import type { PromptMap } from '../core/engine/types.js';

/** A token as llama-server's `/tokenize` gives it `with_pieces`: its text, or its bytes where they are not whole UTF-8. */
export interface ServerToken {
  id: number;
  piece: string | number[];
}

/**
 * The tokens' text and each one's end offset in it. Byte pieces are kept until they make whole
 * characters, and those end with the token that completes them (the tokens before end where the
 * character begins), as main/llm/promptMap.ts reads the local engine's.
 */
export function pieceTexts(tokens: readonly ServerToken[]): { text: string; ends: number[] } {
  const decoder = new TextDecoder('utf-8');
  let text = '';
  const ends: number[] = [];
  for (const { piece } of tokens) {
    text += typeof piece === 'string' ? decoder.decode() + piece : decoder.decode(Uint8Array.from(piece), { stream: true });
    ends.push(text.length);
  }
  text += decoder.decode();
  if (ends.length > 0) ends[ends.length - 1] = text.length;
  return { text, ends };
}

/** How many leading ids two token lists share. */
export function sharedPrefix(a: readonly number[], b: readonly number[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/**
 * The map of a server that cannot count tokens (not llama-server): its prompt as sent (the request's
 * JSON), a token every `bytesPerToken` UTF-8 bytes — the estimate `promptTokens` gives — and as
 * cached the bytes it shares with the previous request's JSON, where that server reported its cache.
 */
export function estimatedMap(text: string, bytesPerToken: number, previous?: string): PromptMap {
  const ends: number[] = [];
  let bytes = 0;
  let shared = -1;
  for (let i = 0; i < text.length;) {
    const code = text.codePointAt(i)!;
    const units = code > 0xffff ? 2 : 1;
    if (shared < 0 && previous !== undefined && text.slice(i, i + units) !== previous.slice(i, i + units)) shared = bytes;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    i += units;
    while ((ends.length + 1) * bytesPerToken <= bytes) ends.push(i);
  }
  if (ends.length * bytesPerToken < bytes) ends.push(text.length);
  if (shared < 0) shared = previous === undefined ? 0 : bytes;
  return { text, ends, cached: Math.min(Math.floor(shared / bytesPerToken), Math.max(0, ends.length - 1)), exact: false };
}
