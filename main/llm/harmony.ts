import { LlamaText, SpecialTokensText } from 'node-llama-cpp';
import type { ParsedCall, ReplyFormat, ResponseItem } from './replyFormat.js';

/**
 * gpt-oss's Harmony format, as its models write it. The prompt ends with `<|start|>assistant`, and
 * a reply is a run of messages: a header (`<|channel|>analysis`, `<|channel|>final`,
 * `<|channel|>commentary to=functions.read <|constrain|>json`), `<|message|>`, the body, and its
 * end — `<|end|>` followed by the next message's `<|start|>assistant`, `<|call|>` after a call, or
 * `<|return|>` after the answer (a stop, never part of the text).
 *
 * The person reads the final and commentary bodies; analysis is reasoning. A stored reply goes back
 * to the wrapper as segments and words, so the template decides what to keep (spec §8: it drops
 * earlier analysis once the conversation moves on), and a call goes back as its exact text.
 */
const START = '<|start|>assistant';
const MESSAGE = '<|message|>';
const ENDS = ['<|end|>', '<|call|>', '<|return|>'];
const SPECIAL = /(<\|(?:start|end|message|channel|constrain|call|return)\|>)/;

export interface HarmonyMessage {
  /** Where the message starts in the reply's text (its `<|start|>assistant`, absent for the first). */
  at: number;
  /** The message's text from its `<|start|>assistant` on, added for the first. */
  raw: string;
  channel: string;
  /** `functions.read` in `to=functions.read`: the message is a call. */
  recipient?: string;
  /** Undefined while the header is still being written. */
  body?: string;
  ended: boolean;
}

/** A reply's messages, in order. */
export function harmonyMessages(text: string): HarmonyMessage[] {
  const full = START + text;
  const messages: HarmonyMessage[] = [];
  for (let at = 0; at < full.length;) {
    const next = full.indexOf('<|start|>', at + 1);
    const stop = next < 0 ? full.length : next;
    messages.push(readMessage(full.slice(at, stop), Math.max(0, at - START.length)));
    at = stop;
  }
  return messages;
}

function readMessage(raw: string, at: number): HarmonyMessage {
  const bodyAt = raw.indexOf(MESSAGE);
  const header = bodyAt < 0 ? raw : raw.slice(0, bodyAt);
  const message: HarmonyMessage = {
    at,
    raw,
    channel: /<\|channel\|>(\w+)/.exec(header)?.[1] ?? '',
    recipient: /\bto=([^\s<]+)/.exec(header)?.[1],
    ended: false,
  };
  if (bodyAt < 0) return message;
  const body = raw.slice(bodyAt + MESSAGE.length);
  const end = Math.min(...ENDS.map((e) => body.indexOf(e)).filter((i) => i >= 0));
  return { ...message, body: Number.isFinite(end) ? body.slice(0, end) : body, ended: Number.isFinite(end) };
}

/** The words a person reads: the bodies of the final and commentary messages that are not calls. */
function wordsOf(messages: HarmonyMessage[]): string {
  return messages
    .filter((m) => m.body !== undefined && m.recipient === undefined && m.channel !== 'analysis')
    .map((m) => m.body)
    .join('\n\n');
}

function call(m: HarmonyMessage): ParsedCall {
  const name = m.recipient!.replace(/^functions\./, '');
  const raw = m.raw;
  const start = m.at;
  const end = m.at + raw.length - (m.at === 0 ? START.length : 0);
  try {
    return { name, args: JSON.parse(m.body!), raw, start, end };
  } catch (err) {
    const problem = `the arguments of ${name} are not valid JSON (${(err as Error).message}): ${m.body!.slice(0, 200)}`;
    return { name, args: undefined, problem, raw, start, end };
  }
}

/** Generated text that has no Harmony message at all is read as plain words. */
const isHarmony = (text: string) => text.includes(MESSAGE);

export const harmonyFormat: ReplyFormat = {
  read(text) {
    if (!isHarmony(text)) return { words: text, calls: [], complete: true };
    const messages = harmonyMessages(text);
    const first = messages.findIndex((m) => m.recipient !== undefined);
    const before = first < 0 ? messages : messages.slice(0, first);
    const callMessages = first < 0 ? [] : messages.slice(first).filter((m) => m.recipient !== undefined);
    const complete = callMessages.filter((m) => m.raw.endsWith('<|call|>'));
    const words = wordsOf(before);
    const raw = first < 0 ? text : text.slice(0, messages[first].at);
    return {
      words,
      ...(raw === words ? {} : { raw }),
      calls: complete.map(call),
      complete: complete.length === callMessages.length,
    };
  },
  visible: (text, final) => (isHarmony(text) ? wordsOf(harmonyMessages(text)) : final ? text : ''),
  // A message to a recipient is a call: generation ends with it, and no words follow.
  wordsSettled: (text) => isHarmony(text) && harmonyMessages(text).some((m) => m.recipient !== undefined),
  items(reply) {
    if (reply.raw === undefined) return reply.text === '' ? [] : [reply.text];
    return harmonyMessages(reply.raw).flatMap((m): ResponseItem[] => {
      if (m.body === undefined || m.recipient !== undefined) return [];
      if (m.channel === 'analysis') return [{ type: 'segment', segmentType: 'thought', text: m.body, ended: m.ended }];
      if (m.channel === 'commentary') return [{ type: 'segment', segmentType: 'comment', text: m.body, ended: m.ended }];
      return [m.body];
    });
  },
  callText: (raw) => LlamaText(raw.split(SPECIAL).map((part, i) => (i % 2 === 1 ? new SpecialTokensText(part) : part))),
};
