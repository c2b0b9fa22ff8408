import { LlamaText, SpecialToken, SpecialTokensText, type LlamaModel, type Token } from 'node-llama-cpp';

/**
 * The prompt's tokens, keeping the tokens the sequence actually evaluated wherever their text is
 * still the prompt's text. A reply sampled token by token, once re-rendered and tokenized again
 * from its text, can come out as other tokens for the same characters (at the template's segment
 * boundaries, say), which would force the model to re-read it. So the longest run of evaluated
 * tokens whose text is a prefix of the prompt is kept, and only the rest is tokenized — from the
 * prompt's own segments, so plain text is never parsed for special tokens.
 */
export function promptTokens(prompt: LlamaText, model: LlamaModel, evaluated: readonly Token[]): PromptTokens {
  const values = prompt.values.map((value) => ({ value, text: valueText(value, model) }));
  const text = values.map((v) => v.text).join('');
  const offsets = tokenOffsets(model, evaluated);
  if (!offsets) return { tokens: prompt.tokenize(model.tokenizer) };

  let common = 0;
  const cachedText = offsets.text;
  while (common < cachedText.length && common < text.length && cachedText[common] === text[common]) common++;
  let keep = 0;
  while (keep < evaluated.length && offsets.ends[keep] <= common) keep++;
  if (keep === evaluated.length && offsets.ends[keep - 1] === text.length) keep--; // leave one token to evaluate
  const rewritten = common < cachedText.length;
  for (; keep > 0; keep--) {
    const rest = suffixFrom(values, keep === 0 ? 0 : offsets.ends[keep - 1]);
    if (rest) return { tokens: [...evaluated.slice(0, keep), ...rest.tokenize(model.tokenizer)], rewritten };
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

/** Each evaluated token's end offset in their joined text, or undefined when pieces don't add up. */
function tokenOffsets(model: LlamaModel, tokens: readonly Token[]): { ends: number[]; text: string } | undefined {
  if (tokens.length === 0) return undefined;
  const ends: number[] = [];
  let text = '';
  for (let i = 0; i < tokens.length; i++) {
    text += model.detokenize([tokens[i]], true, tokens.slice(Math.max(0, i - 4), i));
    ends.push(text.length);
  }
  return text === model.detokenize(tokens, true) ? { ends, text } : undefined;
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
