import {
  LlamaText, MuseChatWrapper, SpecialTokensText, type ChatWrapperGenerateContextStateOptions, type ChatWrapperGeneratedContextState,
  type ChatWrapperSettings,
} from 'node-llama-cpp';
import type { ParsedCall, ReplyFormat, ResponseItem } from './replyFormat.js';
import { readTaggedCalls, taggedSuffix, writeTaggedCall, type TaggedArgs } from './taggedCalls.js';

/**
 * Muse Glimmer's recipient messages, as its template writes them and llama.cpp reads them
 * (`common_chat_params_init_muse_glimmer`). The prompt ends with `<|start|>assistant`, and a reply is
 * a run of messages, each ` to=RECIPIENT<|message|>BODY` ended by `<|eom|>` (the next message's
 * `<|start|>assistant` follows) or `<|eot|>` (the turn's end, a stop): to=self is reasoning, to=user
 * the answer, any other recipient a call whose body is an ATEM block —
 * `<atem:function_calls>\n<atem:invoke name="read">\n<atem:parameter name="path">a.txt</atem:parameter>\n</atem:invoke>\n</atem:function_calls>`,
 * one parameter per argument, a value as it is where the tool's schema says string, JSON otherwise.
 * node-llama-cpp's MuseChatWrapper renders the prompt; it writes a call's arguments as one
 * `params` parameter of JSON, which the template never shows, so MuseAtemWrapper writes them as the
 * template does (a stored call goes back as its exact text either way).
 */
const START = '<|start|>assistant';
const MESSAGE = '<|message|>';
const ENDS = ['<|eom|>', '<|eot|>'];
const INVOKE = '<atem:function_calls>\n<atem:invoke name="';
/** An ATEM block after the invoked name, as key/value arguments (taggedCalls.ts). */
const ATEM: TaggedArgs = {
  open: '">\n<atem:parameter name="',
  assign: '">',
  next: '</atem:parameter>\n<atem:parameter name="',
  close: '</atem:parameter>\n</atem:invoke>\n</atem:function_calls>',
  empty: '">\n</atem:invoke>\n</atem:function_calls>',
  between: '',
  blockEnd: '',
  strings: 'bare',
};
/** The template's special tokens a call holds (llama.cpp preserves them): kept special when the call goes back. */
const SPECIAL = /(<\|(?:start|message|eom|eot)\|>|<\/?atem:(?:function_calls|invoke|parameter)>?)/;

interface MuseMessage {
  /** Where the message starts in the reply's text: its recipient, after the `<|start|>assistant` that opens it. */
  at: number;
  /** Once its header is written: `read` in ` to=read<|message|>`. */
  recipient?: string;
  /** The message to the end of its body (its end token left out); undefined while the header is written. */
  raw: string;
  body?: string;
  ended: boolean;
}

/** A reply's messages, in order: the first after the generation prompt's `<|start|>assistant`, each other after its own. */
export function museMessages(text: string): MuseMessage[] {
  const messages: MuseMessage[] = [];
  for (let at = 0; at <= text.length;) {
    const next = text.indexOf(START, at);
    const stop = next < 0 ? text.length : next;
    const piece = text.slice(at, stop);
    const bodyAt = piece.indexOf(MESSAGE);
    if (bodyAt < 0) {
      // The header is still being written: not yet a call, nor words.
      messages.push({ at, raw: piece, ended: false });
    } else {
      const recipient = /^ to=([^\s<]+)/.exec(piece)?.[1];
      const body = piece.slice(bodyAt + MESSAGE.length);
      const end = Math.min(...ENDS.map((e) => body.indexOf(e)).filter((i) => i >= 0));
      const cut = Number.isFinite(end) ? end : body.length;
      messages.push({ at, recipient, raw: piece.slice(0, bodyAt + MESSAGE.length + cut), body: body.slice(0, cut), ended: Number.isFinite(end) });
    }
    if (next < 0) break;
    at = next + START.length;
  }
  return messages;
}

const isCall = (m: MuseMessage) => m.recipient !== undefined && m.recipient !== 'self' && m.recipient !== 'user';
const isMuse = (text: string) => text.includes(MESSAGE);

/** The words a person reads: the bodies of the messages to the person. */
function wordsOf(messages: MuseMessage[]): string {
  return messages.filter((m) => m.body !== undefined && !isCall(m) && m.recipient !== 'self').map((m) => m.body).join('\n\n');
}

/** A call message read; undefined while it is still being written. */
function call(m: MuseMessage, functions: Parameters<ReplyFormat['read']>[1]): ParsedCall | undefined {
  const body = m.body ?? '';
  const start = m.at;
  const end = m.at + m.raw.length;
  if (body.startsWith(INVOKE)) {
    const read = readTaggedCalls(body, 0, INVOKE.length, ATEM, functions);
    const [first] = read.calls;
    if (read.complete && first && read.end === body.length) return { name: first.name, args: first.args, raw: m.raw, start, end };
    if (!m.ended) return undefined;
  } else if (!m.ended && INVOKE.startsWith(body)) {
    return undefined;
  }
  const problem = `the call to ${m.recipient} is not an ATEM block as the template writes it: ${body.slice(0, 200)}`;
  return { name: m.recipient!, args: undefined, problem, raw: m.raw, start, end };
}

export const museFormat: ReplyFormat = {
  read(text, functions) {
    if (!isMuse(text)) return { words: text, calls: [], complete: true };
    const messages = museMessages(text);
    const first = messages.findIndex(isCall);
    const before = first < 0 ? messages : messages.slice(0, first);
    const calls = first < 0 ? [] : messages.slice(first).filter(isCall).map((m) => call(m, functions));
    const read = calls.filter((c): c is ParsedCall => c !== undefined);
    const words = wordsOf(before);
    // The exact text before the first call, its `<|start|>assistant` left to the wrapper (it opens the calls).
    const raw = first < 0 ? text : text.slice(0, Math.max(0, messages[first].at - START.length));
    return { words, ...(raw === words ? {} : { raw }), calls: read, complete: read.length === calls.length };
  },
  visible: (text, final) => (isMuse(text) ? wordsOf(museMessages(text).filter((m) => !isCall(m))) : final ? text : ''),
  // A message to a tool is a call: the reply's words are settled once one begins.
  wordsSettled: (text) => isMuse(text) && museMessages(text).some(isCall),
  items(reply) {
    if (reply.raw === undefined) return reply.text === '' ? [] : [reply.text];
    return museMessages(reply.raw).flatMap((m): ResponseItem[] => {
      if (m.body === undefined || isCall(m)) return [];
      if (m.recipient === 'self') return [{ type: 'segment', segmentType: 'thought', text: m.body, ended: m.ended }];
      return [m.body];
    });
  },
  callText: (raw) => LlamaText(raw.split(SPECIAL).map((part, i) => (i % 2 === 1 ? new SpecialTokensText(part) : part))),
};

/** node-llama-cpp's settings for Muse (the same for every option). */
const MUSE = new MuseChatWrapper();

/**
 * node-llama-cpp's Muse wrapper, its calls written as the template writes them: one ATEM parameter
 * per argument (the syntax's params prefix is what follows the name's second writing, in the invoke).
 */
export class MuseAtemWrapper extends MuseChatWrapper {
  override readonly settings: ChatWrapperSettings = {
    ...MUSE.settings,
    functions: {
      ...MUSE.settings.functions,
      call: {
        optionalPrefixSpace: false,
        prefix: LlamaText(new SpecialTokensText(' to=')),
        paramsPrefix: LlamaText(new SpecialTokensText('">\n')),
        suffix: LlamaText(new SpecialTokensText(taggedSuffix(ATEM))),
        emptyCallParamsPlaceholder: {},
      },
    },
  };

  /** The wrapper node-llama-cpp chose, with the same options: its system message and dates unchanged. */
  static from(chosen: MuseChatWrapper): MuseAtemWrapper {
    const internal = chosen as unknown as { _systemMessageInSpecialTokensText?: boolean };
    return new MuseAtemWrapper({
      reasoningStrength: chosen.reasoningStrength, keepOnlyLastThought: chosen.keepOnlyLastThought,
      knowledgeCutoff: chosen.knowledgeCutoff, todayDate: chosen.todayDate,
      _systemMessageInSpecialTokensText: internal._systemMessageInSpecialTokensText ?? false,
    } as ConstructorParameters<typeof MuseChatWrapper>[0]);
  }

  /**
   * A message the model's turn goes on after ends `<|eom|>`, as the template ends it (the next message
   * has the same role) and llama.cpp reads it: words before a call, which node-llama-cpp ends `<|eot|>`,
   * the turn's end, where a model would stop.
   */
  override generateContextState(options: ChatWrapperGenerateContextStateOptions): ChatWrapperGeneratedContextState {
    const state = super.generateContextState(options);
    const goesOn = (v: LlamaText['values'][number]) =>
      (v instanceof SpecialTokensText ? new SpecialTokensText(v.value.replaceAll(`<|eot|>${START}`, `<|eom|>${START}`)) : v);
    return { ...state, contextText: LlamaText(state.contextText.values.map(goesOn)) };
  }

  override generateFunctionCall(name: string, params: unknown): LlamaText {
    return museFormat.callText(` to=${name}${MESSAGE}${INVOKE}${writeTaggedCall(ATEM, [{ name, args: params ?? {} }])}`);
  }
}
