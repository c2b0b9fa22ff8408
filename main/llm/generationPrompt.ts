import { Template } from '@huggingface/jinja';
import {
  HarmonyChatWrapper, LlamaText, SpecialTokensText, type ChatWrapper, type ChatWrapperGenerateContextStateOptions, type LlamaModel,
} from 'node-llama-cpp';

/**
 * The generation prompt a template writes (`add_generation_prompt`), taken over exactly: Command R
 * ends at `<|CHATBOT_TOKEN|>` (node-llama-cpp's rendering adds `<|START_RESPONSE|>`, forcing a plain
 * answer), QwQ and Nemotron open `<think>\n` (node-llama-cpp's Qwen wrapper stops at `assistant\n`).
 * The wrapper keeps its class (other code reads its settings); only the end of a prompt that asks
 * for the model's words is replaced.
 */
export function withTemplateGenerationPrompt(
  wrapper: ChatWrapper, template: string, parameters: Record<string, unknown>, model: LlamaModel,
): ChatWrapper {
  if (wrapper instanceof HarmonyChatWrapper) return wrapper;
  const prompt = templateGenerationPrompt(template, parameters, model.tokens.bosString ?? '', model.tokens.eosString ?? '');
  if (!prompt) return wrapper;
  const original = wrapper.generateContextState.bind(wrapper);
  wrapper.generateContextState = (options: ChatWrapperGenerateContextStateOptions) => {
    const state = original(options);
    const last = options.chatHistory.at(-1);
    const asks = last?.type === 'model' && (last.response.length === 0 || typeof last.response.at(-1) === 'object');
    return asks ? { ...state, contextText: withPromptEnd(state.contextText, prompt) } : state;
  };
  const opened = openedThought(prompt);
  if (opened) opens.set(wrapper, opened);
  return wrapper;
}

/** The reasoning a wrapper's generation prompt opens (`<think>\n`), whose end the model writes: its markers. */
export function generationOpensThought(wrapper: ChatWrapper): { prefix: string; suffix: string } | undefined {
  return opens.get(wrapper);
}

const opens = new WeakMap<ChatWrapper, { prefix: string; suffix: string }>();

/**
 * What the template writes after a user message's words when asked for the model's (the end of the
 * user turn and the generation prompt), or undefined where it cannot render. Read after the words,
 * not as the difference `add_generation_prompt` makes: Command R opens the model's turn either way.
 */
export function templateGenerationPrompt(template: string, parameters: Record<string, unknown>, bos: string, eos: string): string | undefined {
  const words = 'KEEL_USER_WORDS';
  const render = (extra: Record<string, unknown>) => new Template(template).render({
    ...parameters, ...extra, messages: [{ role: 'system', content: 'S' }, { role: 'user', content: words }], bos_token: bos, eos_token: eos, add_generation_prompt: true,
  });
  let rendered: string;
  try {
    rendered = render({});
  } catch {
    try {
      rendered = render({ tools: [] });
    } catch {
      return undefined;
    }
  }
  const at = rendered.lastIndexOf(words);
  return at < 0 || at + words.length === rendered.length ? undefined : rendered.slice(at + words.length);
}

/** A thought the generation prompt opens and leaves open (`…<think>\n`), as its markers. */
export function openedThought(prompt: string): { prefix: string; suffix: string } | undefined {
  const match = /<(think|thinking|reasoning)>\s*$/.exec(prompt);
  return match ? { prefix: match[0], suffix: `</${match[1]}>` } : undefined;
}

/**
 * The prompt with its end made the template's generation prompt: the end is either the beginning
 * of it (the rest is added) or it followed by a little more (that is taken off). Anything else is
 * left as it is.
 */
export function withPromptEnd(text: LlamaText, prompt: string): LlamaText {
  const rendered = text.toString();
  const at = rendered.lastIndexOf(prompt);
  if (at >= 0 && rendered.length - at - prompt.length <= 32) return cutAt(text, at + prompt.length) ?? text;
  for (let k = Math.min(prompt.length - 1, rendered.length); k * 2 >= prompt.length; k--) {
    if (rendered.endsWith(prompt.slice(0, k))) return LlamaText([text, new SpecialTokensText(prompt.slice(k))]);
  }
  return text;
}

/** The text up to a character offset, or undefined where that splits a builtin token. */
function cutAt(text: LlamaText, offset: number): LlamaText | undefined {
  if (offset === text.toString().length) return text;
  const values: LlamaText['values'][number][] = [];
  let at = 0;
  for (const value of text.values) {
    const length = LlamaText(value).toString().length;
    if (at + length <= offset) {
      values.push(value);
      at += length;
      continue;
    }
    const cut = offset - at;
    if (typeof value === 'string') values.push(value.slice(0, cut));
    else if (value instanceof SpecialTokensText) values.push(new SpecialTokensText(value.value.slice(0, cut)));
    else if (cut > 0) return undefined;
    break;
  }
  return LlamaText(values);
}
