import type { Conversation, ConversationMessage, ConversationReply, MessageSection, ToolSpec } from '../engine/types.js';
import { messageSections, messageWithNotes } from '../state/notes.js';
import type { Session } from '../session/session.js';
import type { Turn } from '../state/types.js';

/**
 * The conversation a request carries: the kept system prompt, the session's tools, the summary of
 * what was compacted, then each turn as it was sent — the person's message with its notes, and the
 * model's replies as they were generated, with their calls and results. A chat carries no earlier
 * reply's calls and results (spec §2); an agent carries all. `extraUser` is a message sent once and
 * never stored (the compaction request; `extraKind` 'next': the stand-in for the next message's words).
 * Each message keeps its turn number and how its text was put together (`sections`), for the context view.
 */
export function buildConversation(
  session: Session, tools: readonly ToolSpec[], extraUser?: string, extraKind: 'task' | 'next' = 'task',
): Conversation {
  const messages: ConversationMessage[] = [];
  const turns = session.turns();
  let pendingUser = session.history.compacted();
  const flushUser = (text?: string, own: MessageSection[] = [], turn?: number) => {
    const sections: MessageSection[] = [...(pendingUser ? [{ kind: 'summary' as const, text: pendingUser }] : []), ...own];
    const joined = [pendingUser, text].filter((t) => t !== undefined && t !== '').join('\n\n');
    if (joined !== '') messages.push({ role: 'user', text: joined, ...(turn === undefined ? {} : { turn }), sections });
    pendingUser = undefined;
  };
  turns.forEach((turn, i) => {
    if (turn.words !== undefined) flushUser(messageWithNotes(turn.words, turn.notes), messageSections(turn.words, turn.notes), turn.seq);
    else if (pendingUser !== undefined) flushUser();
    const carriesCalls = session.kind === 'agent' || i === turns.length - 1;
    const replies = modelReplies(turn, carriesCalls, session);
    if (replies.length > 0) messages.push({ role: 'model', replies, turn: turn.seq });
  });
  if (extraUser !== undefined || pendingUser !== undefined) flushUser(extraUser, extraUser ? [{ kind: extraKind, text: extraUser }] : []);
  return { system: session.systemPromptForRequest(), tools, messages, promptDate: session.promptDate };
}

function modelReplies(turn: Turn, carriesCalls: boolean, session: Session): ConversationReply[] {
  return turn.replies.map((reply) => ({
    text: reply.text,
    ...(reply.raw === undefined ? {} : { raw: reply.raw }),
    calls: carriesCalls
      ? reply.calls.map((call) => ({ name: call.name, args: call.args, raw: call.raw, number: call.number, result: session.insertedText(call.number) }))
      : [],
  }));
}
