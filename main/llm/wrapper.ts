import {
  ChatWrapper, JinjaTemplateChatWrapper, LlamaText, resolveChatWrapper, type ChatHistoryItem, type ChatModelFunctions, type LlamaModel,
} from 'node-llama-cpp';
import { templateToolsWrapper } from './templateTools.js';

/**
 * The chat wrapper of a model for one session: the model's own template (spec §8), with no clock
 * reaching it. Templates that print the date (Llama 3.x `date_string`, Harmony, Jinja
 * `strftime_now`) see the date fixed when the system prompt was built; the real date travels as a note.
 */
export function sessionWrapper(model: LlamaModel, promptDate: string): ChatWrapper {
  const fixed = new Date(`${promptDate || '2026-01-01'}T12:00:00Z`);
  // node-llama-cpp picks a specialized wrapper where it renders what the template renders, and it
  // compares them on today's clock: the choice is made with the template as shipped, so it does not
  // depend on the day, and the chosen wrapper gets the fixed date.
  const resolved = resolveChatWrapper(model, { customWrapperSettings: { 'llama3.1': { todayDate: fixed }, harmony: { todayDate: fixed } } });
  if (!(resolved instanceof JinjaTemplateChatWrapper)) return resolved;
  const template = model.fileInfo.metadata?.tokenizer?.chat_template;
  const fixedTemplate = typeof template === 'string' ? withFixedDate(template, fixed) : undefined;
  const parameters = { date_string: formatDate(fixed, '%d %b %Y') };
  const wrapper = resolveChatWrapper(model, {
    type: 'jinjaTemplate',
    customWrapperSettings: { jinjaTemplate: { template: fixedTemplate, additionalRenderParameters: parameters } },
  });
  // Where node-llama-cpp could not read the template's calls, the template renders them itself.
  const fallback = wrapper instanceof JinjaTemplateChatWrapper && !wrapper.usingJinjaFunctionCallTemplate;
  return (fallback && fixedTemplate && templateToolsWrapper(fixedTemplate, parameters)) || wrapper;
}

/** A stand-in for result `number` while the wrapper renders: replaced by the exact text afterwards. */
export function resultSentinel(number: number): string {
  return `KEEL_RESULT_${number}_c0ffee`;
}

/**
 * The whole prompt of a request, rendered by the model's wrapper, what stops generation, and what
 * only closes a message (Harmony's `<|end|>`, where node-llama-cpp re-renders and goes on).
 * Tool results were put into the history as sentinels: node-llama-cpp and many templates
 * JSON-encode a result (`"a\nb"` reaches the model as one escaped line), so each sentinel, however
 * it was quoted, is replaced by the result's exact text — as a plain string, which is tokenized
 * without special-token parsing (a file cannot inject `<|im_end|>`).
 */
export function renderPrompt(
  wrapper: ChatWrapper,
  chatHistory: ChatHistoryItem[],
  functions: ChatModelFunctions,
  results: ReadonlyMap<number, string>,
): { text: LlamaText; stopTriggers: LlamaText[]; continueOn: string[] } {
  const state = wrapper.generateContextState({ chatHistory, availableFunctions: functions });
  const forms = [...results].flatMap(([number, text]) => {
    const bare = resultSentinel(number);
    const once = JSON.stringify(bare);
    return [[JSON.stringify(once), text], [once, text], [bare, text]] as const;
  });
  const text = state.contextText.mapValues((value) => {
    if (typeof value !== 'string' || !value.includes('KEEL_RESULT_')) return value;
    return forms.reduce((acc, [form, exact]) => acc.split(form).join(exact), value);
  });
  return {
    text,
    stopTriggers: (state.stopGenerationTriggers ?? []).map((t) => LlamaText(t)),
    continueOn: (state.rerender?.triggers ?? []).map((t) => LlamaText(t).toString()),
  };
}

/** A Jinja template with each `strftime_now("…")` replaced by that date, formatted, as a literal. */
export function withFixedDate(template: string, date: Date): string {
  return template.replace(/strftime_now\(\s*(['"])(.*?)\1\s*\)/g, (_whole, _quote, format: string) => JSON.stringify(formatDate(date, format)));
}

function formatDate(date: Date, format: string): string {
  const month = (style: 'long' | 'short') => new Intl.DateTimeFormat('en-US', { month: style, timeZone: 'UTC' }).format(date);
  const pad = (n: number) => String(n).padStart(2, '0');
  return format.replace(/%[YmdbBHM%]/g, (token) => {
    switch (token) {
      case '%Y': return String(date.getUTCFullYear());
      case '%m': return pad(date.getUTCMonth() + 1);
      case '%d': return pad(date.getUTCDate());
      case '%b': return month('short');
      case '%B': return month('long');
      case '%H': return pad(date.getUTCHours());
      case '%M': return pad(date.getUTCMinutes());
      default: return '%';
    }
  });
}
