import crypto from 'node:crypto';
import { sha256 } from '../core/hash.js';
import { templateGenerationPrompt } from './generationPrompt.js';
import { learnTaggedArgs, pythonJson, TAGGED_PROBES, taggedSuffix, type TaggedArgs } from './taggedCalls.js';
import { Template } from '@huggingface/jinja';
import {
  ChatWrapper, LlamaText, SpecialToken, SpecialTokensText, type ChatHistoryItem, type ChatModelFunctions,
  type ChatWrapperGenerateContextStateOptions, type ChatWrapperGeneratedContextState, type ChatWrapperSettings,
  type LlamaTextValue,
} from 'node-llama-cpp';

/**
 * Tool calls through the model's own Jinja template, for a template whose calls node-llama-cpp
 * cannot read (it would offer the tools in a generic `||call:` syntax of its own). Mistral Small
 * 3.2 is one: a call carries an id the model makes up, `[TOOL_CALLS]name[CALL_ID]a1b2c3d4e[ARGS]{…}`,
 * and its result answers that id. The template renders every request itself, with the tools, the
 * calls (their ids and arguments as generated) and the results; whatever it moves (Mistral puts its
 * tool list before the newest user message) it moves, and the loss is recorded (spec §8).
 *
 * Content goes in as markers and comes out as plain text, so only the template's own text is read
 * for special tokens.
 */
export class TemplateToolsWrapper extends ChatWrapper {
  override readonly wrapperName = 'JinjaTemplateTools';
  override readonly settings: ChatWrapperSettings;
  private readonly jinja: Template;

  constructor(
    template: string,
    /** What the template reads beside the conversation (Llama's `date_string`). */
    private readonly parameters: Record<string, unknown>,
    /** What the template writes between a call's name and its id (`[CALL_ID]`); the id ends at the params prefix. */
    readonly idPrefix: string,
    call: { prefix: string; paramsPrefix: string; suffix: string },
    /**
     * What the template writes around a plain answer in the model's turn (Command R's
     * `<|START_RESPONSE|>`…`<|END_RESPONSE|>`), and the model's end-of-turn text: the model writes
     * them, the person never reads them, and the template renders them again around the stored words.
     */
    readonly answer: { prefix: string; suffix: string; end: string } = { prefix: '', suffix: '', end: '' },
    /**
     * The call/message marker the generation prompt ends in (Functionary v3.2's `>>>`), which the
     * template writes before each assistant message: the model's reply is read as if it began with
     * it, and the stored reply renders it back. Empty where the generation prompt opens no marker.
     */
    readonly opensCall = '',
    /** Whether the template takes a call's arguments as JSON text (Functionary concatenates them), not as an object. */
    private readonly argsAsText = false,
    /** The keys and values a call's arguments are written as (GLM's `<arg_key>`), where they are not one JSON object. */
    readonly tagged?: TaggedArgs,
  ) {
    super();
    this.jinja = new Template(template);
    this.settings = {
      ...ChatWrapper.defaultSettings,
      functions: {
        ...ChatWrapper.defaultSettings.functions,
        call: {
          optionalPrefixSpace: true,
          prefix: LlamaText(new SpecialTokensText(call.prefix)),
          paramsPrefix: LlamaText(new SpecialTokensText(call.paramsPrefix)),
          suffix: LlamaText(new SpecialTokensText(call.suffix)),
        },
      },
    };
  }

  override generateContextState({ chatHistory, availableFunctions }: ChatWrapperGenerateContextStateOptions): ChatWrapperGeneratedContextState {
    const marks = new Marks();
    const { messages, open } = this.messages(chatHistory, marks);
    let rendered: string;
    try {
      rendered = this.jinja.render({
        ...this.parameters,
        messages,
        tools: toolList(availableFunctions ?? {}),
        bos_token: marks.special(new SpecialToken('BOS')),
        eos_token: marks.special(new SpecialToken('EOS')),
        add_generation_prompt: open,
      });
    } catch (err) {
      // Mistral's template, say, wants user and assistant to alternate: a turn stopped before its answer breaks that.
      throw new Error(`The model's chat template refused this conversation: ${(err as Error).message}. Undo the last turn, or switch to another model.`);
    }
    const triggers = [LlamaText(new SpecialToken('EOS'))];
    if (this.answer.suffix !== '' && this.answer.end !== '') triggers.unshift(LlamaText(new SpecialTokensText(this.answer.suffix + this.answer.end)));
    return { contextText: marks.read(rendered), stopGenerationTriggers: triggers };
  }

  /** The history as the template's messages: calls with their ids, each result a `tool` message answering its id. */
  private messages(chatHistory: readonly ChatHistoryItem[], marks: Marks) {
    const messages: Record<string, unknown>[] = [];
    for (const item of chatHistory) {
      if (item.type !== 'model') {
        messages.push({ role: item.type, content: marks.text(LlamaText.fromJSON(item.text).toString()) });
        continue;
      }
      let content = '';
      let calls: Record<string, unknown>[] = [];
      let results: Record<string, unknown>[] = [];
      // An empty reply is a turn too (the model ended at once): rendered, not dropped.
      let empty = item.response.length > 0 && item.response.every((part) => part === '');
      const flush = () => {
        if (content === '' && calls.length === 0 && !empty) return;
        empty = false;
        messages.push({ role: 'assistant', content, ...(calls.length > 0 ? { tool_calls: calls } : {}) }, ...results);
        [content, calls, results] = ['', [], []];
      };
      for (const part of item.response) {
        if (typeof part === 'string') {
          if (calls.length > 0) flush();
          content += marks.text(part);
        } else if (part.type === 'segment') {
          // Reasoning, with its markers as special tokens: the template keeps or drops it.
          if (calls.length > 0) flush();
          const raw = part.raw === undefined ? LlamaText(part.text) : LlamaText.fromJSON(part.raw);
          content += marks.llama(raw);
        } else if (part.type === 'functionCall') {
          if (part.startsNewChunk && calls.length > 0) flush();
          // Tagged arguments are written again by the template from their values, each string value as generated.
          const raw = part.rawCall === undefined || this.tagged ? undefined : this.readCall(LlamaText.fromJSON(part.rawCall).toString());
          const id = raw?.id ?? callId(`${part.name}${JSON.stringify(part.params)}`);
          const args = raw ? marks.text(raw.args) : this.argsAsText ? marks.text(pythonJson(part.params)) : this.tagged ? markedValues(part.params, marks, this.tagged) : part.params;
          calls.push({ id, type: 'function', function: { name: part.name, arguments: args } });
          results.push({ role: 'tool', tool_call_id: id, content: marks.text(String(part.result)) });
        }
      }
      flush();
    }
    // The model writes next unless the history ends with its finished words.
    const last = chatHistory.at(-1);
    const open = last?.type !== 'model' || typeof last.response.at(-1) !== 'string';
    return { messages, open };
  }

  /** A generated call's id and its arguments' exact text. */
  private readCall(raw: string): { id: string; args: string } | undefined {
    const { prefix, paramsPrefix } = this.settings.functions.call;
    if (this.idPrefix === '') {
      const paramsAt = raw.indexOf(LlamaText(paramsPrefix).toString(), LlamaText(prefix).toString().length);
      const suffix = LlamaText(this.settings.functions.call.suffix).toString();
      if (paramsAt < 0) return undefined;
      const args = raw.slice(paramsAt + LlamaText(paramsPrefix).toString().length, suffix === '' ? undefined : -suffix.length);
      return { id: callId(raw), args };
    }
    const idAt = raw.indexOf(this.idPrefix);
    const paramsAt = raw.indexOf(LlamaText(paramsPrefix).toString(), idAt);
    if (!raw.startsWith(LlamaText(prefix).toString()) || idAt < 0 || paramsAt < 0) return undefined;
    const suffix = LlamaText(this.settings.functions.call.suffix).toString();
    const args = raw.slice(paramsAt + LlamaText(paramsPrefix).toString().length, suffix === '' ? undefined : -suffix.length);
    return { id: raw.slice(idAt + this.idPrefix.length, paramsAt), args };
  }
}

/**
 * The call syntax a template writes, read from a probe conversation with one call, or undefined
 * when its calls do not look like `PREFIX name [ID_PREFIX id] PARAMS_PREFIX {args} SUFFIX`. Two
 * shapes: a special token right before the name with an id after it (Mistral Small 3.2's
 * `[TOOL_CALLS]name[CALL_ID]id[ARGS]{…}`), or, without an id, whatever the model's turn holds
 * before the name (Hermes 3's `<tool_call>\n{"name": "`, Command R's `<|START_ACTION|>[…"tool_name": "`,
 * Functionary's `>>>`, which its generation prompt already ends in: `opensCall`), its end where the
 * turn ends (`ends`: the model's end-of-turn tokens). A template that writes the arguments as keys and
 * values rather than one JSON object (GLM's `<arg_key>`, LFM2.5's `[name(k='v')]`) has their syntax
 * learnt from its rendering of probe calls (taggedCalls.ts).
 */
export function templateToolsWrapper(
  template: string, parameters: Record<string, unknown> = {}, ends: readonly string[] = [],
): TemplateToolsWrapper | undefined {
  for (const args of [{ keel_arg: 1 }, '{"keel_arg": 1}']) {
    const wrapper = probeCalls(template, parameters, ends, args);
    if (wrapper) return wrapper;
  }
  return undefined;
}

function probeCalls(template: string, parameters: Record<string, unknown>, ends: readonly string[], probeArgs: unknown): TemplateToolsWrapper | undefined {
  const id = 'keelcall1';
  const name = 'keel_probe';
  const args = '{"keel_arg": 1}';
  const turnEnds = ['KEEL_PROBE_EOS', ...ends];
  try {
    const render = (calls: readonly { name: string; args: unknown }[]) => new Template(template).render({
      ...parameters,
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: PROBE_USER },
        { role: 'assistant', content: '', tool_calls: calls.map((c, i) => ({ id: i === 0 ? id : `${id}${i}`, type: 'function', function: { name: c.name, arguments: c.args } })) },
        { role: 'tool', tool_call_id: id, content: 'KEEL_PROBE_RESULT' },
      ],
      tools: toolList({ [name]: { description: 'probe', params: { type: 'object', properties: {} } } }),
      bos_token: '',
      eos_token: 'KEEL_PROBE_EOS',
      add_generation_prompt: false,
    });
    const rendered = render([{ name, args: probeArgs }]);
    const nameAt = rendered.lastIndexOf(name);
    const argsAt = rendered.indexOf(args, nameAt);
    const resultAt = rendered.indexOf('KEEL_PROBE_RESULT', nameAt);
    if (nameAt < 0 || resultAt < 0) return undefined;
    if (argsAt < 0 || argsAt > resultAt) {
      // Not one JSON object: keys and values, learnt from the template's rendering of probe calls.
      const turn = typeof probeArgs === 'string' ? undefined : turnPrefix(template, parameters, rendered, nameAt);
      if (!turn || turn.opensCall !== '') return undefined;
      const fromName = (probe: keyof typeof TAGGED_PROBES) => {
        const text = render(TAGGED_PROBES[probe]);
        return text.slice(text.lastIndexOf(name));
      };
      const tagged = learnTaggedArgs({ two: fromName('two'), one: fromName('one'), none: fromName('none'), pair: fromName('pair') }, turn.prefix, turnEnds);
      if (!tagged) return undefined;
      const answer = answerMarks(template, parameters, turn.opened, ends);
      return new TemplateToolsWrapper(template, parameters, '', { prefix: turn.prefix, paramsPrefix: '', suffix: taggedSuffix(tagged) }, answer, '', false, tagged);
    }
    const idAt = rendered.indexOf(id, nameAt);
    const tail = rendered.slice(argsAt + args.length, resultAt);
    const end = Math.min(...turnEnds.map((e) => tail.indexOf(e)).filter((at) => at >= 0));
    if (!Number.isFinite(end)) return undefined;
    const suffix = tail.slice(0, end);
    if (idAt >= 0 && idAt < argsAt) {
      // The call's prefix is the special token right before the name (`[TOOL_CALLS]`).
      const prefix = /\[[A-Z_]+\]$/.exec(rendered.slice(0, nameAt))?.[0];
      if (prefix === undefined) return undefined;
      return new TemplateToolsWrapper(template, parameters, rendered.slice(nameAt + name.length, idAt), {
        prefix, paramsPrefix: rendered.slice(idAt + id.length, argsAt), suffix,
      });
    }
    const turn = turnPrefix(template, parameters, rendered, nameAt);
    if (!turn) return undefined;
    const answer = answerMarks(template, parameters, turn.opened.slice(0, turn.opened.length - turn.opensCall.length), ends);
    if (turn.opensCall !== '' && !answer.prefix.startsWith(turn.opensCall)) return undefined;
    return new TemplateToolsWrapper(
      template, parameters, '', { prefix: turn.prefix, paramsPrefix: rendered.slice(nameAt + name.length, argsAt), suffix }, answer, turn.opensCall,
      typeof probeArgs === 'string',
    );
  } catch {
    return undefined;
  }
}

const PROBE_USER = 'KEEL_PROBE_USER';

/**
 * A call without an id is all the model's turn holds before the name, after the generation prompt
 * (`opened`): its prefix, and the marker the generation prompt already ends in, if any (`opensCall`).
 */
function turnPrefix(template: string, parameters: Record<string, unknown>, rendered: string, nameAt: number) {
  const opened = templateGenerationPrompt(template, parameters, '', 'KEEL_PROBE_EOS');
  const userAt = rendered.indexOf(PROBE_USER);
  if (opened === undefined || userAt < 0) return undefined;
  let turnAt = userAt + PROBE_USER.length;
  let same = 0;
  while (same < opened.length && rendered[turnAt + same] === opened[same]) same++;
  // Never inside a tag: `<think>` against `<TOOLCALL>` shares only `<`.
  const open = opened.slice(0, same).lastIndexOf('<');
  if (same < opened.length && open > opened.slice(0, same).lastIndexOf('>')) same = open;
  turnAt += same;
  let prefix = rendered.slice(turnAt, nameAt);
  // A thought the generation prompt opened and the turn closed (Nemotron's `<think></think>`) is the model's reasoning, not the call.
  const thought = /<\/(think|thinking|reasoning)>\s*/.exec(prefix);
  if (thought) prefix = prefix.slice(thought.index + thought[0].length);
  let opensCall = '';
  if (prefix === '') {
    // The generation prompt ends inside the marker the template writes before each assistant
    // message (Functionary's `>>>`, then a recipient: `all` for words, a function's name for a
    // call): that marker is the call's prefix, and the model's reply is read as if it began with it.
    // The marker is the prompt's last word after the turn's header, and a plain answer starts with it too.
    const marker = /\s(\S+)$/.exec(opened)?.[1];
    if (marker === undefined || !rendered.slice(0, nameAt).endsWith(marker)) return undefined;
    [prefix, opensCall] = [marker, marker];
  }
  return prefix.trim() === '' ? undefined : { prefix, opensCall, opened };
}

/** What the template writes around a plain answer after its generation prompt, up to the turn's end. */
function answerMarks(template: string, parameters: Record<string, unknown>, opened: string, ends: readonly string[]) {
  const words = PROBE_USER;
  const answer = 'KEEL_PROBE_ANSWER';
  const none = { prefix: '', suffix: '', end: '' };
  try {
    const rendered = new Template(template).render({
      ...parameters, tools: [], bos_token: '', eos_token: 'KEEL_PROBE_EOS', add_generation_prompt: false,
      messages: [{ role: 'system', content: 'S' }, { role: 'user', content: words }, { role: 'assistant', content: answer }],
    });
    const turnAt = rendered.indexOf(words) + words.length;
    const answerAt = rendered.indexOf(answer, turnAt);
    if (turnAt < words.length || answerAt < 0 || !rendered.startsWith(opened, turnAt)) return none;
    const tail = rendered.slice(answerAt + answer.length);
    const found = ['KEEL_PROBE_EOS', ...ends].map((e) => ({ e, at: tail.indexOf(e) })).filter((x) => x.at >= 0).sort((a, b) => a.at - b.at)[0];
    if (!found) return none;
    return { prefix: rendered.slice(turnAt + opened.length, answerAt), suffix: tail.slice(0, found.at), end: found.e === 'KEEL_PROBE_EOS' ? ends[0] ?? '' : found.e };
  } catch {
    return none;
  }
}

/** The tools in the OpenAI shape chat templates take. */
function toolList(functions: ChatModelFunctions) {
  return Object.entries(functions).map(([name, f]) => ({
    type: 'function',
    function: { name, description: f.description ?? '', parameters: f.params ?? { type: 'object', properties: {} } },
  }));
}

/**
 * A call's arguments with each string value marked, so only the template's own text is read for
 * special tokens. A template that writes strings as JSON quotes the marker, which stands for the
 * quoted text (Marks.read).
 */
function markedValues(params: unknown, marks: Marks, tagged: TaggedArgs): unknown {
  if (!params || typeof params !== 'object' || Array.isArray(params)) return params;
  const mark = (v: string) => marks.text(tagged.strings === 'json' ? JSON.stringify(v) : v);
  return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? mark(v) : v]));
}

/** A call id where the model wrote none Keel could read: nine letters and digits, from the call itself. */
function callId(seed: string): string {
  return sha256(seed).slice(0, 9);
}

/** Markers for content and special tokens in the template's input, read back into a LlamaText. */
class Marks {
  private readonly values = new Map<string, LlamaTextValue | LlamaText>();
  private readonly tag = crypto.randomBytes(6).toString('hex');

  text(value: string): string {
    return this.mark(value);
  }

  special(token: SpecialToken): string {
    return this.mark(token);
  }

  llama(text: LlamaText): string {
    return this.mark(text);
  }

  private mark(value: LlamaTextValue | LlamaText): string {
    const key = `KEEL${this.tag}M${this.values.size}E`;
    this.values.set(key, value);
    return key;
  }

  /** The rendered text: the template's own text read for special tokens, each marker as its value. */
  read(rendered: string): LlamaText {
    const parts = rendered.split(new RegExp(`("?KEEL${this.tag}M\\d+E"?)`));
    return LlamaText(parts.map((part, i) => {
      if (i % 2 === 0) return part === '' ? '' : new SpecialTokensText(part);
      const quoted = part.startsWith('"') && part.endsWith('"');
      const value = this.values.get(quoted ? part.slice(1, -1) : part);
      if (value === undefined) return new SpecialTokensText(part);
      // A marker the template JSON-encoded (`arguments|tojson`) stands for the exact text it marks.
      return value;
    }));
  }
}
