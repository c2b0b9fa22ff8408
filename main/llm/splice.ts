import { LlamaText, SpecialToken, SpecialTokensText, type LlamaModel, type Token } from 'node-llama-cpp';

/**
 * The prompt's tokens, keeping the tokens the sequence actually evaluated wherever their text is
 * still the prompt's text. A reply sampled token by token, once re-rendered and tokenized again
 * from its text, can come out as other tokens for the same characters (at the template's segment
 * boundaries, say), which would force the model to re-read it. So the longest run of evaluated
 * tokens whose text is a prefix of the prompt is kept, and only the rest is tokenized — from the
 * prompt's own segments, so plain text is never parsed for special tokens.
 */
export function promptTokens(
  prompt: LlamaText, model: LlamaModel, evaluated: readonly Token[], cache: EvaluatedText = new EvaluatedText(),
): PromptTokens {
  const values = prompt.values.map((value) => ({ value, text: valueText(value, model) }));
  const text = values.map((v) => v.text).join('');
  const offsets = cache.read(model, evaluated);
  if (!offsets) return { tokens: prompt.tokenize(model.tokenizer) };

  const cachedText = offsets.text;
  // Most requests only append: one native comparison finds that; otherwise the first difference is sought.
  let common = text.startsWith(cachedText) ? cachedText.length : 0;
  while (common < cachedText.length && common < text.length && cachedText[common] === text[common]) common++;
  let keep = tokensWithin(offsets.ends, common);
  if (keep === evaluated.length && offsets.ends[keep - 1] === text.length) keep--; // leave one token to evaluate
  const rewritten = common < cachedText.length;
  for (; keep > 0; keep--) {
    const rest = suffixFrom(values, keep === 0 ? 0 : offsets.ends[keep - 1]);
    if (rest) return { tokens: evaluated.slice(0, keep).concat(rest.tokenize(model.tokenizer)), rewritten };
  }
  return { tokens: prompt.tokenize(model.tokenizer), rewritten };
}

export interface PromptTokens {
  tokens: Token[];
  /**
   * Whether the prompt's text departs from the text already evaluated before that text's end: the
   * template rendered earlier text otherwise. Undefined when the evaluated tokens could not be read back.
   */
  rewritten?: boolean;
}

/**
 * The text of a sequence's evaluated tokens and each token's end offset in it, kept from request to
 * request (one per sequence): each request reads only the tokens appended since the last. The
 * tokens it was read from are kept, so whatever changed the sequence (an erase, a restored state,
 * another session's tokens) is seen by comparing them: the offsets are cut back to the first token
 * that differs and extended from there. Every piece is read as before, one token at a time with the
 * 4 tokens before it as context, so the offsets are the ones a full read would give.
 */
export class EvaluatedText {
  private tokens: Token[] = [];
  private ends: number[] = [];
  private text = '';
  /** Whether the pieces add up to the detokenized whole, checked up to `checked` tokens. */
  private checked = 0;
  private model?: LlamaModel;

  /** Each evaluated token's end offset in their joined text, or undefined when pieces don't add up. */
  read(model: LlamaModel, evaluated: readonly Token[]): { ends: readonly number[]; text: string } | undefined {
    if (model !== this.model) this.reset(model);
    let same = 0;
    const limit = Math.min(this.tokens.length, evaluated.length);
    while (same < limit && this.tokens[same] === evaluated[same]) same++;
    if (same < this.tokens.length) this.cut(same);
    for (let i = this.tokens.length; i < evaluated.length; i++) {
      this.text += model.detokenize([evaluated[i]], true, evaluated.slice(Math.max(0, i - 4), i));
      this.tokens.push(evaluated[i]);
      this.ends.push(this.text.length);
    }
    if (evaluated.length === 0) return undefined;
    if (this.checked < this.tokens.length) {
      // The pieces must add up to the text of all the tokens read at once; the appended pieces are
      // checked against the appended tokens read with the same context as a whole, so a piece that
      // only adds up with its neighbours (a character split between tokens) is still caught.
      const from = Math.max(0, this.checked - 4);
      const whole = model.detokenize(this.tokens.slice(this.checked), true, this.tokens.slice(from, this.checked));
      const start = this.checked === 0 ? 0 : this.ends[this.checked - 1];
      if (this.text.slice(start) !== whole) return undefined;
      this.checked = this.tokens.length;
    }
    return { ends: this.ends, text: this.text };
  }

  private cut(length: number): void {
    this.tokens.length = length;
    this.ends.length = length;
    this.text = length === 0 ? '' : this.text.slice(0, this.ends[length - 1]);
    this.checked = Math.min(this.checked, length);
  }

  private reset(model: LlamaModel): void {
    this.model = model;
    this.cut(0);
  }
}

/** How many of the tokens end at or before `offset` (`ends` ascends): a binary search, not a walk over the history. */
function tokensWithin(ends: readonly number[], offset: number): number {
  let low = 0;
  let high = ends.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (ends[mid] <= offset) low = mid + 1;
    else high = mid;
  }
  return low;
}

function valueText(value: LlamaText['values'][number], model: LlamaModel): string {
  if (typeof value === 'string') return value;
  if (value instanceof SpecialTokensText) return value.value;
  return model.detokenize(value.tokenize(model.tokenizer), true);
}

/** The prompt from a character offset on, as a LlamaText; undefined if the offset splits a builtin token. */
function suffixFrom(values: { value: LlamaText['values'][number]; text: string }[], offset: number): LlamaText | undefined {
  let at = 0;
  for (let i = 0; i < values.length; i++) {
    const { value, text } = values[i];
    if (offset < at + text.length) {
      const cut = offset - at;
      const rest = values.slice(i + 1).map((v) => v.value);
      if (cut === 0) return LlamaText([value, ...rest]);
      if (typeof value === 'string') return LlamaText([value.slice(cut), ...rest]);
      if (value instanceof SpecialTokensText) return LlamaText([new SpecialTokensText(value.value.slice(cut)), ...rest]);
      return value instanceof SpecialToken ? undefined : undefined;
    }
    at += text.length;
  }
  return offset === at ? LlamaText([]) : undefined;
}
