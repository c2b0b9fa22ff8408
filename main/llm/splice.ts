import { LlamaText, SpecialTokensText, type LlamaContextSequence, type LlamaModel, type Token } from 'node-llama-cpp';

/**
 * The prompt's tokens, keeping the tokens the sequence actually evaluated wherever their text is
 * still the prompt's text. A reply sampled token by token, once re-rendered and tokenized again
 * from its text, can come out as other tokens for the same characters (at the template's segment
 * boundaries, say), which would force the model to re-read it. So the longest run of evaluated
 * tokens whose text is a prefix of the prompt is kept, and only the rest is tokenized — from the
 * prompt's own segments, so plain text is never parsed for special tokens. The kept tokens are
 * not copied: a request costs what is new, however long the history (issue 10).
 */
export function promptTokens(prompt: LlamaText, model: LlamaModel, evaluated: EvaluatedText): PromptTokens {
  const values = prompt.values.map((value) => ({ value, text: valueText(value, model) }));
  const read = evaluated.read();
  if (!read) return spliced(evaluated, 0, prompt.tokenize(model.tokenizer));

  // How far the prompt's text is the evaluated text: value by value, never joined. A slice is a view,
  // and comparing two strings is one native comparison (`startsWith` at an offset reads character by character).
  const cachedText = read.text;
  let common = 0;
  let length = 0;
  let departed = false;
  for (const { text } of values) {
    length += text.length;
    if (departed) continue;
    const evaluatedPart = cachedText.slice(common, common + text.length);
    if (evaluatedPart === text) common += text.length;
    else {
      departed = true;
      for (let k = 0; k < evaluatedPart.length && evaluatedPart[k] === text[k]; k++) common++;
    }
  }
  let keep = countAtMost(read.ends, common); // the tokens that end within the common text
  if (keep === evaluated.length && read.ends[keep - 1] === length) keep--; // leave one token to evaluate
  const rewritten = common < cachedText.length;
  for (; keep > 0; keep--) {
    const rest = suffixFrom(values, read.ends[keep - 1]);
    if (rest) return spliced(evaluated, keep, rest.tokenize(model.tokenizer), rewritten);
  }
  return spliced(evaluated, 0, prompt.tokenize(model.tokenizer), rewritten);
}

export interface PromptTokens {
  /** The prompt's length in tokens. */
  length: number;
  /** The first index at which the prompt's tokens differ from the evaluated ones (at most the prompt's length). */
  firstDiff: number;
  /**
   * Whether the prompt's text departs from the text already evaluated before that text's end: the
   * template rendered earlier text otherwise. Undefined when the evaluated tokens could not be read back.
   */
  rewritten?: boolean;
  /** The prompt's tokens from `index` on (what a request evaluates), read before the evaluated tokens change. */
  from(index: number): Token[];
}

/** The prompt as the first `kept` evaluated tokens, then `rest`. */
function spliced(evaluated: EvaluatedText, kept: number, rest: Token[], rewritten?: boolean): PromptTokens {
  const tokens = evaluated.tokens;
  let firstDiff = kept;
  while (firstDiff < tokens.length && firstDiff - kept < rest.length && tokens[firstDiff] === rest[firstDiff - kept]) firstDiff++;
  return {
    length: kept + rest.length,
    firstDiff,
    rewritten,
    from: (index) => index >= kept ? rest.slice(index - kept) : tokens.slice(index, kept).concat(rest),
  };
}

/** The sequence as the evaluated text reads it: its tokens compared in place, copied only where they depart. */
export type SequenceTokens = Pick<LlamaContextSequence, 'nextTokenIndex' | 'contextTokens' | 'compareContextTokens'>;

/**
 * The tokens a sequence evaluated, their text and each token's end offset in it, kept from request
 * to request (one per sequence). A request says it is about to change the sequence (`changing`) and
 * records what it evaluated (`record`); so does anything else that changes it (a restored state).
 * Before the next request, `sync` takes the record as it is where nothing else changed the sequence
 * since and it holds as many tokens; otherwise (a request that failed midway, a restored state) it
 * compares the sequence with the record in place, cuts the record back to the first token that
 * differs and reads the rest from the sequence. Every piece is read as before, one token at a time
 * with the 4 tokens before it as context, so the offsets are the ones a full read would give.
 */
export class EvaluatedText {
  private kept: Token[] = [];
  private ends: number[] = [];
  private text = new ChunkedText();
  /** Whether the pieces add up to the detokenized whole, checked up to `checked` tokens. */
  private checked = 0;
  private model?: LlamaModel;
  /** Whether the kept tokens are the sequence's: compared, or recorded, and nothing changed it since. */
  private known = false;

  /** The evaluated tokens (not a copy: read them before the next `record` or `sync`). */
  get tokens(): readonly Token[] {
    return this.kept;
  }

  get length(): number {
    return this.kept.length;
  }

  /** Makes the kept tokens the sequence's. */
  sync(model: LlamaModel, sequence: SequenceTokens): void {
    if (model !== this.model) {
      this.model = model;
      this.known = false;
      this.cut(0);
    }
    if (this.known && sequence.nextTokenIndex === this.kept.length) return;
    const same = sequence.compareContextTokens(this.kept).firstDifferentIndex;
    if (same < this.kept.length) this.cut(same);
    if (sequence.nextTokenIndex > this.kept.length) this.append(sequence.contextTokens.slice(this.kept.length));
    this.known = true;
  }

  /** The sequence is about to change: until `record`, the kept tokens are not known to be its. */
  changing(): void {
    this.known = false;
  }

  /** What a request evaluated: the sequence's tokens from `start` on are now `tokens`. */
  record(start: number, tokens: readonly Token[]): void {
    this.cut(Math.min(start, this.kept.length));
    this.append(tokens);
    this.known = true;
  }

  /** Each evaluated token's end offset in their joined text, or undefined when there are none or the pieces don't add up. */
  read(): { ends: readonly number[]; text: ChunkedText } | undefined {
    const model = this.model;
    if (!model || this.kept.length === 0) return undefined;
    if (this.checked < this.kept.length) {
      // The pieces must add up to the text of all the tokens read at once; the appended pieces are
      // checked against the appended tokens read with the same context as a whole, so a piece that
      // only adds up with its neighbours (a character split between tokens) is still caught.
      const from = Math.max(0, this.checked - 4);
      const whole = model.detokenize(this.kept.slice(this.checked), true, this.kept.slice(from, this.checked));
      const start = this.checked === 0 ? 0 : this.ends[this.checked - 1];
      if (this.text.slice(start, this.text.length) !== whole) return undefined;
      this.checked = this.kept.length;
    }
    return { ends: this.ends, text: this.text };
  }

  private append(tokens: readonly Token[]): void {
    const model = this.model;
    if (!model) throw new Error('EvaluatedText: sync with a model before recording tokens.');
    for (const token of tokens) {
      const i = this.kept.length;
      this.text.append(model.detokenize([token], true, this.kept.slice(Math.max(0, i - 4), i)));
      this.kept.push(token);
      this.ends.push(this.text.length);
    }
  }

  private cut(length: number): void {
    this.kept.length = length;
    this.ends.length = length;
    this.text.cut(length === 0 ? 0 : this.ends[length - 1]);
    this.checked = Math.min(this.checked, length);
  }
}

/**
 * A long text that grows at its end, kept as flat chunks: a string grown with `+=` is a rope that the
 * engine copies whole the next time it is read, which at 128k tokens is every request; here only the
 * last chunk (at most CHUNK characters) is ever copied, and a slice within a chunk is a view.
 */
export class ChunkedText {
  private chunks: string[] = [];
  /** Where each chunk begins in the text. */
  private starts: number[] = [];
  /** The growing end, not yet a chunk. */
  private tail = '';
  private tailStart = 0;

  get length(): number {
    return this.tailStart + this.tail.length;
  }

  append(piece: string): void {
    this.tail += piece;
    if (this.tail.length < CHUNK) return;
    this.chunks.push(this.tail);
    this.starts.push(this.tailStart);
    this.tailStart += this.tail.length;
    this.tail = '';
  }

  /** The text from `from` to `to` (clamped to the text). */
  slice(from: number, to: number): string {
    to = Math.min(to, this.length);
    if (from >= to) return '';
    let parts = '';
    for (let at = from; at < to;) {
      const { text, start } = this.chunkAt(at);
      const end = Math.min(to, start + text.length);
      parts += text.slice(at - start, end - start);
      at = end;
    }
    return parts;
  }

  /** Keeps the first `length` characters. */
  cut(length: number): void {
    if (length >= this.length) return;
    const { text, start, index } = this.chunkAt(length);
    this.chunks.length = this.starts.length = index;
    this.tail = text.slice(0, length - start);
    this.tailStart = start;
  }

  private chunkAt(offset: number): { text: string; start: number; index: number } {
    if (offset >= this.tailStart) return { text: this.tail, start: this.tailStart, index: this.chunks.length };
    const index = countAtMost(this.starts, offset) - 1;
    return { text: this.chunks[index], start: this.starts[index], index };
  }
}

/** How long the growing end of a ChunkedText gets before it is kept as a chunk (characters). */
const CHUNK = 16_384;

/** How many of the ascending `values` are at most `offset`: a binary search, not a walk over the history. */
function countAtMost(values: readonly number[], offset: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (values[mid] <= offset) low = mid + 1;
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
      return undefined; // a builtin token (SpecialToken) is not split
    }
    at += text.length;
  }
  return offset === at ? LlamaText([]) : undefined;
}
