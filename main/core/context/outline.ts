import type { Conversation, MessageSection } from '../engine/types.js';
import { formatId } from '../hygiene/ids.js';
import type { ContextPartKind } from './types.js';

/** A part of the conversation before it is found in the prompt: what it is, and its own text as the template may render it. */
export interface Piece {
  kind: ContextPartKind;
  label: string;
  turn?: number;
  result?: number;
  tool?: string;
  /**
   * Its text as Keel holds it, then the forms a template may render it in (trimmed, JSON-escaped),
   * best first; none where it has no text of its own (the tool list, found otherwise; an empty reply).
   */
  texts: string[];
}

const SECTION_KINDS = { summary: 'summary', words: 'message', notes: 'notes', task: 'task', next: 'next' } as const satisfies
  Record<MessageSection['kind'], ContextPartKind>;

/** The conversation's parts in the order a request sends them: the system prompt, the tool list, then each message's pieces. */
export function outline(conversation: Conversation): Piece[] {
  const pieces: Piece[] = [{ kind: 'system', label: 'system prompt', texts: forms(conversation.system) }];
  const n = conversation.tools.length;
  if (n > 0) pieces.push({ kind: 'tools', label: `tool list (${n} tool${n === 1 ? '' : 's'})`, texts: [] });
  for (const message of conversation.messages) {
    const turn = message.turn;
    const at = turn === undefined ? '' : `turn ${turn} `;
    if (message.role === 'user') {
      const sections = message.sections ?? [{ kind: 'words', text: message.text }];
      for (const section of sections) {
        const kind = SECTION_KINDS[section.kind];
        const inTurn = kind === 'message' || kind === 'notes';
        pieces.push({ kind, label: sectionLabel(kind, at), ...(inTurn && turn !== undefined && { turn }), texts: forms(section.text) });
      }
      continue;
    }
    message.replies.forEach((reply, i) => {
      const which = message.replies.length > 1 ? ` ${i + 1}` : '';
      const texts = [...forms(reply.raw ?? ''), ...forms(reply.text)];
      pieces.push({ kind: 'reply', label: `${at}reply${which}`, ...(turn !== undefined && { turn }), texts: [...new Set(texts)] });
      for (const call of reply.calls) {
        const of = { ...(turn !== undefined && { turn }), result: call.number, tool: call.name };
        const id = formatId(call.number);
        pieces.push({ kind: 'call', label: `${at}call ${id} (${call.name})`, ...of, texts: forms(call.raw) });
        pieces.push({ kind: 'result', label: `${at}result ${id} (${call.name})`, ...of, texts: forms(call.result) });
      }
    });
  }
  return pieces;
}

function sectionLabel(kind: ContextPartKind, at: string): string {
  switch (kind) {
    case 'summary': return 'summary of the compacted turns';
    case 'task': return 'compaction request';
    case 'next': return 'next message (template text and a one-character stand-in for your words)';
    case 'notes': return `${at}notes`;
    default: return `${at}message`;
  }
}

/** A text, then as a template may render it: trimmed, or JSON-escaped (a template that writes it with `tojson`). */
function forms(text: string): string[] {
  const trimmed = text.trim();
  const escaped = JSON.stringify(trimmed).slice(1, -1);
  return [...new Set([text, trimmed, escaped])].filter((t) => t !== '');
}
