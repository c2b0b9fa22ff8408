import type { LlamaModel, Token } from 'node-llama-cpp';
import type { ReplyFormat } from './replyFormat.js';

/**
 * A reply read as it is generated, at a cost that grows with each token, not with the reply.
 *
 * The text: each new token is read with the tokens before it as context (node-llama-cpp's own way of
 * streaming), from the last token whose text settled; a token that ends inside a character (its text
 * holds U+FFFD) is read again with the next, so a character split between tokens comes out whole.
 * The whole reply is read once more at the end (`final`), so the text returned is exactly the
 * generated tokens' text.
 *
 * The calls: a call is complete only once its end has been written (the call syntax's suffix, the
 * JSON's closing bracket where there is no suffix, Harmony's `<|call|>`): the format reads the whole
 * text again only when one of those `ends` has just been written, which is when `read(text).calls`
 * can have changed. Reading after every token gave the same answers, at a cost quadratic in the reply.
 */
export class ReplyStream {
  readonly tokens: Token[] = [];
  /** The text of `tokens` (special tokens as their text). */
  text = '';
  /** Tokens whose text is settled, and that text. */
  private settled = 0;
  private settledText = '';
  private readonly longestEnd: number;

  constructor(private readonly model: LlamaModel, private readonly format: ReplyFormat, private readonly ends: readonly string[]) {
    this.longestEnd = Math.max(1, ...ends.map((e) => e.length));
  }

  /** Adds a token; true when the text now holds a complete call. */
  push(token: Token): boolean {
    const before = Math.min(this.text.length, this.settledText.length);
    this.tokens.push(token);
    const pending = this.tokens.slice(this.settled);
    const piece = this.model.detokenize(pending, true, this.tokens.slice(Math.max(0, this.settled - 4), this.settled));
    this.text = this.settledText + piece;
    if (!piece.includes('\uFFFD') || pending.length >= 8) {
      this.settled = this.tokens.length;
      this.settledText = this.text;
    }
    const window = this.text.slice(Math.max(0, before - this.longestEnd + 1));
    return this.ends.some((end) => window.includes(end)) && this.format.read(this.text).calls.length > 0;
  }

  /** The text with one more token, not added (an end-of-generation token that may complete a call). */
  textWith(token: Token): string {
    return this.model.detokenize([...this.tokens, token], true);
  }

  /** The reply's exact text: all its tokens read at once. */
  final(): string {
    this.text = this.model.detokenize(this.tokens, true);
    return this.text;
  }
}

/** The strings whose writing can complete a call in a format (see ReplyStream). */
export function callEnds(o: { harmony: boolean; suffix: string }): string[] {
  if (o.harmony) return ['<|call|>'];
  return o.suffix === '' ? ['}', ']'] : [o.suffix];
}
