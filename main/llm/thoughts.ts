import { isLlamaText, LlamaText, type ChatWrapper } from 'node-llama-cpp';
import type { ResponseItem } from './replyFormat.js';

/**
 * Reasoning a model writes between markers its wrapper knows (Qwen3's `<think>\n` … `\n</think>`).
 * A reply's reasoning goes back to the wrapper as a thought segment with its exact text, so the
 * template keeps or drops it (spec §8: Qwen3 drops the reasoning of earlier turns), and the person
 * reads the words around it.
 */
export interface ThoughtMarkers {
  prefix: string;
  suffix: string;
  text: { prefix: LlamaText; suffix: LlamaText };
}

export function thoughtMarkers(wrapper: ChatWrapper): ThoughtMarkers | undefined {
  const thought = wrapper.settings.segments?.thought;
  // A thought the generation prompt opens itself (`openedOnStart`) is not read apart here.
  if (!thought?.suffix || !(typeof thought.prefix === 'string' || isLlamaText(thought.prefix)) || thought.prefix === '') return undefined;
  const text = { prefix: LlamaText(thought.prefix), suffix: LlamaText(thought.suffix) };
  return { prefix: text.prefix.toString(), suffix: text.suffix.toString(), text };
}

type Part = string | { thought: string; ended: boolean; trailing: string };

/** Words and thoughts, in order. The whitespace after a thought's end belongs to it. */
function split(text: string, m: ThoughtMarkers): Part[] {
  const parts: Part[] = [];
  for (let at = 0; at < text.length;) {
    const start = text.indexOf(m.prefix, at);
    if (start < 0) {
      parts.push(text.slice(at));
      break;
    }
    if (start > at) parts.push(text.slice(at, start));
    const bodyAt = start + m.prefix.length;
    const end = text.indexOf(m.suffix, bodyAt);
    if (end < 0) {
      parts.push({ thought: text.slice(bodyAt), ended: false, trailing: '' });
      break;
    }
    const after = end + m.suffix.length;
    const trailing = /^\s*/.exec(text.slice(after))![0];
    parts.push({ thought: text.slice(bodyAt, end), ended: true, trailing });
    at = after + trailing.length;
  }
  return parts;
}

/** The words of a text, without its thoughts; undefined markers leave it as it is. */
export function withoutThoughts(text: string, m: ThoughtMarkers | undefined): string {
  return m ? split(text, m).filter((p): p is string => typeof p === 'string').join('') : text;
}

export function hasThoughts(text: string, m: ThoughtMarkers | undefined): boolean {
  return m !== undefined && text.includes(m.prefix);
}

/** A reply's text as response items: each thought a segment that renders its exact text. */
export function thoughtItems(text: string, m: ThoughtMarkers): ResponseItem[] {
  return split(text, m).map((p): ResponseItem => (typeof p === 'string' ? p : {
    type: 'segment',
    segmentType: 'thought',
    text: p.thought,
    ended: p.ended,
    raw: LlamaText([m.text.prefix, p.thought, p.ended ? m.text.suffix : '', p.trailing]).toJSON(),
  }));
}
