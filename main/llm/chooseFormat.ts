import { HarmonyChatWrapper, LlamaText, SpecialTokensText, type ChatWrapper } from 'node-llama-cpp';
import { generationOpensThought } from './generationPrompt.js';
import { harmonyFormat } from './harmony.js';
import { MuseAtemWrapper, museFormat } from './muse.js';
import type { ReplyFormat } from './replyFormat.js';
import { TemplateToolsWrapper } from './templateTools.js';
import { thoughtMarkers } from './thoughts.js';
import { plainFormat, type CallSyntax } from './toolCalls.js';

/**
 * The reply format of a wrapper: gpt-oss's Harmony channels, Muse Glimmer's recipient messages, else words then calls in its syntax,
 * with the template's answer marker taken off and reasoning its generation prompt opens read as reasoning.
 */
export function replyFormat(wrapper: ChatWrapper, syntax: CallSyntax): ReplyFormat {
  if (wrapper instanceof HarmonyChatWrapper) return harmonyFormat;
  if (wrapper instanceof MuseAtemWrapper) return museFormat;
  const answer = wrapper instanceof TemplateToolsWrapper ? wrapper.answer.prefix : '';
  // The marker the generation prompt ends in (Functionary's `>>>`): the reply is read as if it began
  // with it, so `all\n…` is words and `read\n{…}` a call, each as the template writes its messages.
  const opensCall = wrapper instanceof TemplateToolsWrapper ? wrapper.opensCall : '';
  if (answer !== '' || opensCall !== '') {
    // The template's answer marker (Command R's `<|START_RESPONSE|>`, Functionary's `>>>all\n`) is the template's to render, not the person's to read.
    const plain = plainFormat(syntax, thoughtMarkers(wrapper));
    const cut = (reply: string) => {
      const text = opensCall + reply;
      return answer === '' ? text : text.startsWith(answer) ? text.slice(answer.length) : answer.startsWith(text) ? '' : text;
    };
    return { ...plain, read: (text, functions) => plain.read(cut(text), functions), visible: (text, final) => plain.visible(cut(text), final), wordsSettled: (text) => plain.wordsSettled(cut(text)) };
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
    read: (text, functions) => {
      const read = plain.read(opened.prefix + text, functions);
      return { ...read, words: read.words.trimEnd() };
    },
    visible: (text, final) => plain.visible(opened.prefix + text, final),
    wordsSettled: (text) => plain.wordsSettled(opened.prefix + text),
    items: (reply) => plain.items(reply),
    callText: (raw) => plain.callText(raw),
  };
}
