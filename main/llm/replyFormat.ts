import { HarmonyChatWrapper, LlamaText, SpecialTokensText, type ChatModelResponse, type ChatWrapper } from 'node-llama-cpp';
import { generationOpensThought } from './generationPrompt.js';
import { TemplateToolsWrapper } from './templateTools.js';
import { harmonyFormat } from './harmony.js';
import { thoughtMarkers } from './thoughts.js';
import { plainFormat, type CallSyntax, type ParsedCall } from './toolCalls.js';

export type ResponseItem = ChatModelResponse['response'][number];

/** Generated text, read: what the person reads, the exact text before the calls, and the calls. */
export interface ReadReply {
  /** The words before the first call, as the person reads them. */
  words: string;
  /** The exact generated text before the first call, where it is more than the words. */
  raw?: string;
  calls: ParsedCall[];
  /** False while a call is still being written. */
  complete: boolean;
}

/**
 * How a model family writes a reply, and how a stored reply goes back to its wrapper. Most
 * families write words (and reasoning, thoughts.ts) then calls in the wrapper's call syntax
 * (toolCalls.ts); gpt-oss writes channels of messages (harmony.ts).
 */
export interface ReplyFormat {
  read(text: string): ReadReply;
  /** The words written so far, while generating: never a call, nor what may become one. */
  visible(text: string, final: boolean): string;
  /** A stored reply's text part as the wrapper's response items (its calls follow them). */
  items(reply: { text: string; raw?: string }): ResponseItem[];
  /** A call's exact text as the prompt carries it, special tokens marked as such. */
  callText(raw: string): LlamaText;
}

export function replyFormat(wrapper: ChatWrapper, syntax: CallSyntax): ReplyFormat {
  if (wrapper instanceof HarmonyChatWrapper) return harmonyFormat;
  const answer = wrapper instanceof TemplateToolsWrapper ? wrapper.answer.prefix : '';
  if (answer !== '') {
    // The template's answer marker (Command R's `<|START_RESPONSE|>`) is the template's to render, not the person's to read.
    const plain = plainFormat(syntax, thoughtMarkers(wrapper));
    const cut = (text: string) => (text.startsWith(answer) ? text.slice(answer.length) : answer.startsWith(text) ? '' : text);
    return { ...plain, read: (text) => plain.read(cut(text)), visible: (text, final) => plain.visible(cut(text), final) };
  }
  const opened = generationOpensThought(wrapper);
  if (!opened) return plainFormat(syntax, thoughtMarkers(wrapper));
  // The generation prompt opened the reasoning (`<think>\n`): the reply is read as if it began with
  // it, so the reasoning is reasoning (never shown as words) and the stored reply renders it back.
  const markers = thoughtMarkers(wrapper) ?? {
    prefix: opened.prefix.trim(), suffix: opened.suffix,
    text: { prefix: LlamaText(new SpecialTokensText(opened.prefix.trim())), suffix: LlamaText(new SpecialTokensText(opened.suffix)) },
  };
  const plain = plainFormat(syntax, markers);
  return {
    // The words without the whitespace before the turn's end (Nemotron writes `answer\n<SPECIAL_12>`);
    // the stored reply keeps its exact text (raw), reasoning included.
    read: (text) => {
      const read = plain.read(opened.prefix + text);
      return { ...read, words: read.words.trimEnd() };
    },
    visible: (text, final) => plain.visible(opened.prefix + text, final),
    items: (reply) => plain.items(reply),
    callText: (raw) => plain.callText(raw),
  };
}
