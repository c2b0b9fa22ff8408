import type { ChatHistoryItem, ChatModelFunctions } from 'node-llama-cpp';
import { messageWithNotes } from '../core/session/notes.js';
import type { Session } from '../core/session/session.js';
import type { Turn } from '../core/session/types.js';
import type { ToolSpec } from '../core/tools/types.js';
import type { ReplyFormat, ResponseItem } from './replyFormat.js';
import { resultSentinel } from './wrapper.js';

/**
 * The conversation a request carries, for the model's wrapper to render: the kept system
 * prompt, the summary of what was compacted, then each turn as it was sent — the person's
 * message with its notes, and the model's replies as they were generated, with their calls and results.
 * A chat carries no earlier reply's tool calls and results (spec §2); an agent carries all.
 * `extraUser` is a message sent once and never stored (the compaction request).
 */
export function requestHistory(session: Session, format: ReplyFormat, extraUser?: string) {
  const history: ChatHistoryItem[] = [{ type: 'system', text: session.systemPromptForRequest() }];
  const results = new Map<number, string>();
  const turns = session.history();
  let pendingUser = session.compactedHistory();
  const flushUser = (text?: string) => {
    const joined = [pendingUser, text].filter((t) => t !== undefined && t !== '').join('\n\n');
    if (joined !== '') history.push({ type: 'user', text: joined });
    pendingUser = undefined;
  };
  turns.forEach((turn, i) => {
    if (turn.words !== undefined) flushUser(messageWithNotes(turn.words, turn.notes));
    else if (pendingUser !== undefined) flushUser();
    const carriesCalls = session.kind === 'agent' || i === turns.length - 1;
    const response = modelResponse(turn, carriesCalls, format, session, results);
    if (response.length > 0) history.push({ type: 'model', response });
  });
  if (extraUser !== undefined || pendingUser !== undefined) flushUser(extraUser);
  // The request asks for the model's next words: an open model response, as node-llama-cpp's own
  // chat does, so the wrapper renders the generation prompt (or continues the reply after results).
  if (history[history.length - 1].type !== 'model') history.push({ type: 'model', response: [] });
  return { history, results };
}

function modelResponse(turn: Turn, carriesCalls: boolean, format: ReplyFormat, session: Session, results: Map<number, string>) {
  const response: ResponseItem[] = [];
  for (const reply of turn.replies) {
    response.push(...format.items(reply));
    if (!carriesCalls) continue;
    reply.calls.forEach((call, i) => {
      results.set(call.number, session.insertedText(call.number));
      response.push({
        // Each reply's calls are their own round (call, results, then the model goes on): without
        // this, a wrapper merges calls of consecutive replies into one, rewriting what was sent.
        startsNewChunk: i === 0,
        type: 'functionCall',
        name: call.name,
        params: call.args,
        result: resultSentinel(call.number),
        rawCall: format.callText(call.raw).toJSON(),
      });
    });
  }
  return response;
}

/** The tools as the wrapper offers them: the same list, in the same order, for the whole session. */
export function toolFunctions(tools: readonly ToolSpec[]): ChatModelFunctions {
  return Object.fromEntries(tools.map((t) => [t.name, { description: t.description, params: t.parameters }])) as ChatModelFunctions;
}
