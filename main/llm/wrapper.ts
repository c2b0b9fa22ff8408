import {
  ChatWrapper, JinjaTemplateChatWrapper, LlamaText, MuseChatWrapper, resolveChatWrapper, specializedChatWrapperTypeNames, type ChatHistoryItem,
  type ChatModelFunctions, type LlamaModel,
} from 'node-llama-cpp';
import { Template } from '@huggingface/jinja';
import { withTemplateGenerationPrompt } from './generationPrompt.js';
import { describeFailure, renderFailure, specialTokenTexts, standardContext } from './templateContext.js';
import { MuseAtemWrapper } from './muse.js';
import { templateToolsWrapper } from './templateTools.js';
import { callSyntax, formatCall } from './toolCalls.js';

/**
 * The chat wrapper of a model for one session: the model's own template (spec §8), with no clock
 * reaching it. Templates that print the date (Llama 3.x `date_string`, Harmony, Jinja
 * `strftime_now`) see the date fixed when the system prompt was built; the real date travels as a note.
 *
 * General rules, whatever the family (templates.test.ts runs each shared template under its real name):
 * - node-llama-cpp's wrappers all get the fixed date (`fixedDateSettings`);
 * - a template node-llama-cpp cannot use because it reads `tools` unguarded (as Hermes 3 did before
 *   scripts/patchPackages.mjs iterated Undefined as empty, as Python does) is rendered with `tools: []` where no tool exists, so the template itself renders, not a wrapper picked by name;
 * - a template that renders no tool definitions (DeepSeek V3.1) gets them from Keel, once, in the
 *   system prompt, with a call syntax Keel reads back (node-llama-cpp's generic one);
 * - the generation prompt is the template's own (generationPrompt.ts);
 * - a template that fails to render the standard conversation is replaced by the generic format of
 *   the model's family, and the failure is kept (`wrapperProblem`) with the file and template line.
 */
export function sessionWrapper(model: LlamaModel, promptDate: string): ChatWrapper {
  const fixed = new Date(`${promptDate || '2026-01-01'}T12:00:00Z`);
  const template = model.fileInfo.metadata?.tokenizer?.chat_template;
  const fixedTemplate = typeof template === 'string' && template.trim() !== '' ? withFixedDate(template, fixed) : undefined;
  // As Hugging Face renders: the tokenizer's special tokens as text; then the fixed date as llama.cpp
  // gives it to every template (common/chat.cpp common_chat_extra_context: `date_string`, `datetime`).
  const parameters: Record<string, unknown> = {
    ...specialTokenTexts(model), date_string: formatDate(fixed, '%d %b %Y'), datetime: formatDate(fixed, '%b %d %Y'),
  };
  const chosen = chosenWrapper(model, fixed, fixedTemplate, parameters);
  // node-llama-cpp's Muse wrapper writes a call's arguments as no Muse template does (muse.ts).
  let wrapper = chosen.wrapper instanceof MuseChatWrapper ? MuseAtemWrapper.from(chosen.wrapper) : chosen.wrapper;
  if (fixedTemplate && !chosen.problem) wrapper = withTemplateGenerationPrompt(wrapper, fixedTemplate, parameters, model);
  const problem = chosen.problem
    ?? (fixedTemplate ? renderProblem(wrapper, fixedTemplate, parameters) ?? callsProblem(wrapper, fixedTemplate, parameters) : undefined);
  if (!problem) return wrapper;
  // The template cannot render a conversation with tools: a generic format that writes the template's
  // own turn markers (ChatML for `<|im_start|>`, Llama 3.1 for `<|start_header_id|>`), picked without
  // the model's name (Hermes 3 "Llama 3.1" by name writes ChatML turns).
  const { metadata } = model.fileInfo;
  const general = { ...metadata?.general, name: undefined, basename: undefined, base_model: undefined, size_label: undefined };
  const generic = resolveChatWrapper({
    noJinja: true, customWrapperSettings: fixedDateSettings(fixed), tokenizer: model.tokenizer, bosString: model.tokens.bosString,
    fileInfo: { ...model.fileInfo, metadata: { ...metadata, general } as typeof metadata },
  }) ?? resolveChatWrapper(model, { noJinja: true, customWrapperSettings: fixedDateSettings(fixed) });
  problems.set(generic, `${modelFileName(model)}: ${problem} Keel uses the generic ${generic.wrapperName} format instead.`);
  return generic;
}

/** Why a session's wrapper is not the model's own template, where it is not (a template that fails to render). */
export function wrapperProblem(wrapper: ChatWrapper): string | undefined {
  return problems.get(wrapper);
}

const problems = new WeakMap<ChatWrapper, string>();

function chosenWrapper(
  model: LlamaModel, fixed: Date, fixedTemplate: string | undefined, parameters: Record<string, unknown>,
): { wrapper: ChatWrapper; problem?: string } {
  // node-llama-cpp picks a specialized wrapper where it renders what the template renders, and it
  // compares them on today's clock: the choice is made with the template as shipped, so it does not
  // depend on the day, and the chosen wrapper gets the fixed date. The template is given what
  // Hugging Face gives it (`parameters`); where it still fails node-llama-cpp's sanity check,
  // nothing is picked by name in silence: the failure is the session's problem, named.
  const settings = { ...fixedDateSettings(fixed), jinjaTemplate: { additionalRenderParameters: parameters } };
  const byName = () => resolveChatWrapper(model, { customWrapperSettings: fixedDateSettings(fixed), noJinja: true });
  let resolved: ChatWrapper | undefined;
  try {
    resolved = resolveChatWrapper(model, { customWrapperSettings: settings, fallbackToOtherWrappersOnJinjaError: false });
  } catch {
    resolved = undefined;
  }
  if (!fixedTemplate) return { wrapper: resolved ?? byName() };
  // A specialized wrapper that renders what the template renders.
  if (resolved && !(resolved instanceof JinjaTemplateChatWrapper)) return { wrapper: resolved };
  if (!resolved && !jinjaUsable(model, fixedTemplate, parameters)) {
    // A template that loops over `tools` unguarded renders given an empty tool list: the template itself.
    const withTools = { ...parameters, tools: [] };
    if (!jinjaUsable(model, fixedTemplate, withTools)) {
      const failure = renderFailure(fixedTemplate, standardContext(parameters));
      return { wrapper: byName(), problem: `its chat template fails to render${failure ? ` (${describeFailure(failure)})` : ''}.` };
    }
    Object.assign(parameters, withTools);
  }
  const describesTools = rendersToolDefinitions(fixedTemplate, parameters);
  const wrapper = resolveChatWrapper(model, {
    type: 'jinjaTemplate',
    customWrapperSettings: {
      jinjaTemplate: {
        template: fixedTemplate, additionalRenderParameters: parameters,
        // A template that renders no tool definitions: node-llama-cpp documents the tools in the
        // system prompt itself, in its generic call syntax, rather than calls the model was never shown.
        ...(describesTools ? {} : { functionCallMessageTemplate: 'noJinja' as const }),
      },
    },
  });
  if (!describesTools) return { wrapper };
  // Where node-llama-cpp could not read the template's calls, or read them otherwise than the
  // template writes them (Command R, Nemotron: a cut prefix), the template renders them itself.
  if (!(wrapper instanceof JinjaTemplateChatWrapper)) return { wrapper };
  const ends = [model.tokens.eosString, model.tokens.eotString].filter((e): e is string => !!e);
  const own = templateToolsWrapper(fixedTemplate, parameters, ends);
  if (!own) return { wrapper };
  // A call as each writes it, with a string and a number (GLM-4.7's `<arg_key>`s, which node-llama-cpp writes as one `params` key of JSON).
  const writes = (w: ChatWrapper) => formatCall(callSyntax(w), 'keel_probe', { keel_a: 'KEEL_STR', keel_b: 7 });
  return { wrapper: !wrapper.usingJinjaFunctionCallTemplate || writes(wrapper) !== writes(own) ? own : wrapper };
}

/** Whether node-llama-cpp's Jinja wrapper accepts the template (its sanity check renders it). */
function jinjaUsable(model: LlamaModel, template: string, parameters: Record<string, unknown>): boolean {
  try {
    new JinjaTemplateChatWrapper({ template, tokenizer: model.tokenizer, additionalRenderParameters: parameters });
    return true;
  } catch {
    return false;
  }
}

/** Whether the template shows the model the tools it is given (their names and descriptions). */
export function rendersToolDefinitions(template: string, parameters: Record<string, unknown> = {}): boolean {
  const tools = [{ type: 'function', function: { name: 'keel_probe_tool', description: 'KEEL_PROBE_DESCRIPTION', parameters: { type: 'object', properties: {} } } }];
  try {
    const text = new Template(template).render({
      ...parameters, messages: [{ role: 'system', content: 'S' }, { role: 'user', content: 'U' }], tools, bos_token: '', eos_token: '', add_generation_prompt: true,
    });
    return text.includes('keel_probe_tool');
  } catch {
    // A template that cannot render tools at all is caught by renderProblem.
    return true;
  }
}

/**
 * What goes wrong when the wrapper renders Keel's standard conversation (system, user, a call
 * with its result, an answer, another user message), or undefined when it renders.
 */
function renderProblem(wrapper: ChatWrapper, template: string, parameters: Record<string, unknown>): string | undefined {
  try {
    wrapper.generateContextState({
      chatHistory: [
        { type: 'system', text: 'You are a coding agent.' },
        { type: 'user', text: 'What is in a.txt?' },
        { type: 'model', response: [{ type: 'functionCall', name: 'read', params: { path: 'a.txt' }, result: 'alpha' }, 'It says alpha.'] },
        { type: 'user', text: 'Thanks.' },
        { type: 'model', response: [] },
      ],
      // Parameters as Keel's tools have them: described, an enum, an array of objects (plan_write).
      availableFunctions: {
        read: { description: 'Reads a file.', params: { type: 'object', properties: { path: { type: 'string', description: 'The file.' } } } },
        plan: {
          description: 'Writes the plan.',
          params: {
            type: 'object',
            properties: {
              items: { type: 'array', description: 'The steps.', items: { type: 'object', properties: { text: { type: 'string' }, status: { type: 'string', enum: ['todo', 'done'] } } } },
            },
          },
        },
      },
    });
    return undefined;
  } catch (err) {
    const message = (err as Error).message;
    // A variable the template reads and is not given is named with its line; else the line the message points at.
    const failure = renderFailure(template, standardContext(parameters));
    if (failure?.variable) return `its chat template fails to render a conversation with tools (${describeFailure(failure)}).`;
    const line = templateLine(template, message);
    return `its chat template fails to render a conversation with tools${line ? ` at line ${line.number} (${line.text})` : ''}: ${message}.`;
  }
}

/**
 * A template that shows the model its tools but writes calls neither node-llama-cpp nor Keel reads
 * (no call prefix after the generation prompt; one that ends inside its message marker, as
 * Functionary v3.2's `>>>`, is read by TemplateToolsWrapper `opensCall`): the model would call tools
 * Keel never runs, so it is a problem like a failed render.
 */
function callsProblem(wrapper: ChatWrapper, template: string, parameters: Record<string, unknown>): string | undefined {
  if (LlamaText(wrapper.settings.functions.call.prefix).toString() !== '' || !rendersToolDefinitions(template, parameters)) return undefined;
  return 'its chat template shows the tools, but neither node-llama-cpp nor Keel reads the calls it writes (no call prefix after the generation prompt).';
}

/** The template line an error most likely comes from: a `for` that unpacks, an undefined name's first use. */
export function templateLine(template: string, message: string): { number: number; text: string } | undefined {
  const lines = template.split('\n');
  const patterns: RegExp[] = [];
  if (/unpack/i.test(message)) patterns.push(/\{%-?\s*for\s+\w+\s*,/);
  if (/for loop/i.test(message)) patterns.push(/\{%-?\s*for\s/);
  for (const word of message.match(/[A-Za-z_][\w.]*(?=\W*(?:is|was) (?:not defined|undefined))/g) ?? []) patterns.push(new RegExp(`\\b${word.replace('.', '\\.')}\\b`));
  for (const pattern of patterns) {
    const at = lines.findIndex((l) => pattern.test(l));
    if (at >= 0) return { number: at + 1, text: lines[at].trim().slice(0, 120) };
  }
  return undefined;
}

function modelFileName(model: LlamaModel): string {
  return model.filename ?? model.fileInfo.metadata?.general?.name ?? 'the model';
}

/**
 * The fixed date for every node-llama-cpp wrapper, not only those known to print one (Llama 3.1,
 * Llama 3.2 lightweight, Harmony, Muse take `todayDate`): a wrapper that takes no date ignores it.
 */
export function fixedDateSettings(date: Date): Record<string, { todayDate: Date }> {
  return Object.fromEntries(specializedChatWrapperTypeNames.map((name) => [name, { todayDate: date }]));
}

/**
 * An empty reply's text while the wrapper renders: node-llama-cpp's wrappers render no turn for an
 * empty model text, so the turn is rendered around this stand-in, which is then taken out — the
 * prompt carries the empty turn the model generated (its header, then its end).
 */
export const EMPTY_REPLY = 'KEEL_EMPTY_REPLY_c0ffee';

/** A stand-in for result `number` while the wrapper renders: replaced by the exact text afterwards. */
export function resultSentinel(number: number): string {
  return `KEEL_RESULT_${number}_c0ffee`;
}

/** A result's sentinel JSON-encoded twice (`"\"KEEL_RESULT_1_c0ffee\""`), once, or bare, its number captured. */
const SENTINEL_FORMS = /"\\"KEEL_RESULT_(\d+)_c0ffee\\""|"KEEL_RESULT_(\d+)_c0ffee"|KEEL_RESULT_(\d+)_c0ffee/g;

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
  const text = state.contextText.mapValues((value) => {
    if (typeof value !== 'string') return value;
    const bare = value.includes(EMPTY_REPLY) ? value.split(EMPTY_REPLY).join('') : value;
    if (!bare.includes('KEEL_RESULT_')) return bare;
    // One pass over the text, whatever the number of results (issue 10): at each place the most
    // quoted form of a sentinel is tried first, as JSON-encoding twice, once, or not at all left it.
    return bare.replace(SENTINEL_FORMS, (whole, twice?: string, once?: string, plain?: string) => results.get(Number(twice ?? once ?? plain)) ?? whole);
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
