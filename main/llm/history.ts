import type { ChatHistoryItem, ChatModelFunctions } from 'node-llama-cpp';
import type { Conversation, ConversationReply, ToolSpec } from '../core/engine/types.js';
import type { ReplyFormat, ResponseItem } from './replyFormat.js';
import { EMPTY_REPLY, resultSentinel } from './wrapper.js';

/**
 * A conversation as node-llama-cpp's chat history, for the model's wrapper to render. Results go in
 * as sentinels (replaced by their exact text after rendering, see wrapper.ts `renderPrompt`); the
 * map gives each sentinel's text.
 */
export function chatHistory(conversation: Conversation, format: ReplyFormat) {
  const history: ChatHistoryItem[] = [{ type: 'system', text: conversation.system }];
  const results = new Map<number, string>();
  for (const message of conversation.messages) {
    if (message.role === 'user') history.push({ type: 'user', text: message.text });
    else {
      const response = message.replies.flatMap((reply) => modelResponse(reply, format, results));
      // An empty reply is a turn the model took: rendered as the empty turn it generated, never
      // dropped (two user messages would merge, and the cache would be re-read from there).
      // Wrappers skip an empty model text, so it goes in as a stand-in, taken out after rendering (wrapper.ts).
      if (response.length > 0 || message.replies.length > 0) history.push({ type: 'model', response: response.length > 0 ? response : [EMPTY_REPLY] });
    }
  }
  // The request asks for the model's next words: an open model response, as node-llama-cpp's own
  // chat does, so the wrapper renders the generation prompt (or continues the reply after results).
  if (history[history.length - 1].type !== 'model') history.push({ type: 'model', response: [] });
  return { history, results };
}

function modelResponse(reply: ConversationReply, format: ReplyFormat, results: Map<number, string>): ResponseItem[] {
  const response: ResponseItem[] = [...format.items(reply)];
  reply.calls.forEach((call, i) => {
    results.set(call.number, call.result);
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
  return response;
}

/** The tools as the wrapper offers them: the same list, in the same order, for the whole session. */
export function toolFunctions(tools: readonly ToolSpec[]): ChatModelFunctions {
  return Object.fromEntries(tools.map((t) => [t.name, { description: t.description, params: t.parameters }])) as ChatModelFunctions;
}
