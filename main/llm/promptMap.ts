import type { LlamaModel, LlamaText, Token } from 'node-llama-cpp';
import type { PromptMap } from '../core/engine/types.js';
import { promptTokens, type EvaluatedText } from './splice.js';

/**
 * The prompt as a request would send it now, token by token (core/engine/types.ts `PromptMap`):
 * the very tokens `runRequest` would use (splice.ts: the sequence's own where their text is still
 * the prompt's), each read back with the tokens before it as context, as EvaluatedText reads them.
 * `cached` is what the request would keep: up to the first token that differs from the sequence's,
 * and never the last token (a request evaluates at least one). On a sequence that cannot cut its
 * state back (`restoredAt`), a departure before the cache's end re-reads from the checkpoint
 * node-llama-cpp restores: the one `restoredAt` names.
 */
export function promptMap(
  prompt: LlamaText, model: LlamaModel, evaluated: EvaluatedText,
  o: { held: number; restoredAt?: (start: number) => number | undefined },
): PromptMap {
  const spliced = promptTokens(prompt, model, evaluated);
  const tokens = spliced.from(0);
  const start = Math.min(spliced.firstDiff, Math.max(0, tokens.length - 1));
  const restored = start < o.held ? o.restoredAt?.(start) : undefined;
  const cached = restored === undefined ? start : Math.min(start, restored + 1);
  return { ...tokenTexts(tokens, model), cached, exact: true };
}

/** Bytes one character takes at most in UTF-8: a group of byte tokens longer than this is not waiting for its character's end. */
const MAX_CHAR_TOKENS = 4;

/**
 * Each token's text and end offset. A token read alone that leaves a character unfinished (U+FFFD
 * at its end: the first bytes of a character spelled in byte tokens) is read together with the
 * tokens after it, up to four, and the group's text is the last token's: the others end where the
 * group begins, so a character never splits between two parts.
 */
export function tokenTexts(tokens: readonly Token[], model: LlamaModel): { text: string; ends: number[] } {
  const ends: number[] = [];
  let text = '';
  let from = 0;
  for (let i = 0; i < tokens.length; i++) {
    const context = tokens.slice(Math.max(0, from - 4), from);
    const piece = model.detokenize(tokens.slice(from, i + 1), true, context);
    if (piece.endsWith('\uFFFD') && i + 1 - from < MAX_CHAR_TOKENS && i + 1 < tokens.length) {
      ends.push(text.length);
      continue;
    }
    text += piece;
    ends.push(text.length);
    from = i + 1;
  }
  return { text, ends };
}
