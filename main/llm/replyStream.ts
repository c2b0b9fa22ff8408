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
  /** Tokens whose text is settled, and that text. */
  private settled = 0;
  private settledText = '';
  /** The settled text's last characters (at least TAIL of them): what the checks on each token read. */
  private settledTail = '';
  /** The text of the tokens after the settled ones. */
  private piece = '';
  private readonly longestEnd: number;
  /** How much of the settled text's end `settledTail` keeps. */
  private readonly tailLength: number;

  constructor(private readonly model: LlamaModel, private readonly format: ReplyFormat, private readonly ends: readonly string[]) {
    this.longestEnd = Math.max(1, ...ends.map((e) => e.length));
    this.tailLength = Math.max(TAIL, this.longestEnd);
  }

  /**
   * The text of `tokens` (special tokens as their text). Reading it whole costs its length, so what
   * runs on every token reads only its end (`endsWith`, the call-end window).
   */
  get text(): string {
    return this.settledText + this.piece;
  }

  /** Whether the text ends with `end`: read from the tail, whatever the reply's length. */
  endsWith(end: string): boolean {
    const tail = this.settledTail + this.piece;
    return end.length <= tail.length || this.settledTail.length === this.settledText.length ? tail.endsWith(end) : this.text.endsWith(end);
  }

  /** Adds a token; true when the text now holds a complete call. */
  push(token: Token): boolean {
    this.tokens.push(token);
    const pending = this.tokens.slice(this.settled);
    const before = this.settledTail;
    this.piece = this.model.detokenize(pending, true, this.tokens.slice(Math.max(0, this.settled - 4), this.settled));
    // Where an end may have just been written: from the end's length before the new text on.
    const window = before.slice(Math.max(0, before.length - this.longestEnd + 1)) + this.piece;
    if (!this.piece.includes('\uFFFD') || pending.length >= 8) {
      this.settled = this.tokens.length;
      this.settledText += this.piece;
      this.settledTail = (this.settledTail + this.piece).slice(-this.tailLength);
      this.piece = '';
    }
    return this.ends.some((end) => window.includes(end)) && this.format.read(this.text).calls.length > 0;
  }

  /** The text with one more token, not added (an end-of-generation token that may complete a call). */
  textWith(token: Token): string {
    return this.model.detokenize([...this.tokens, token], true);
  }

  /** The reply's exact text: all its tokens read at once. */
  final(): string {
    this.settledText = this.model.detokenize(this.tokens, true);
    this.settled = this.tokens.length;
    this.settledTail = this.settledText.slice(-this.tailLength);
    this.piece = '';
    return this.settledText;
  }
}

/** How much of the text's end the checks on each token can read without reading it whole. */
const TAIL = 256;

/** The strings whose writing can complete a call in a format (see ReplyStream). */
export function callEnds(o: { harmony: boolean; suffix: string }): string[] {
  if (o.harmony) return ['<|call|>'];
  return o.suffix === '' ? ['}', ']'] : [o.suffix];
}
