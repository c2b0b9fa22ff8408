/**
 * Stock node-llama-cpp on the scenario: a LlamaChatSession on a sequence with node-llama-cpp's
 * default checkpoints (one every 8,192 tokens where the model needs them), the four tools as
 * session functions, the replies forced token by token as bench:reuse's stock harness forces them.
 * The history actions are what a program on LlamaChatSession does: an undo or rewind cuts the chat
 * history (setChatHistory) before the next prompt; a regenerate cuts the last exchange and prompts
 * with the same message again.
 */
import { LlamaChatSession, defineChatSessionFunction, type ChatHistoryItem, type ChatSessionModelFunctions, type GbnfJsonObjectSchema } from 'node-llama-cpp';
import type { LoadedModel } from '../../main/llm/model.js';
import { SequenceProbe, type RequestMeasure } from '../reuse/measure.js';
import { forcedReply, forcedStream, markRequests } from '../reuse/stock.js';
import { makeWorkspace, runPlainTool, toolSchemas } from '../reuse/tools.js';
import type { Scenario } from './scenario.js';

export async function runStock(scenario: Scenario, model: LoadedModel, o: { systemPrompt: (root: string) => string; promptsDir: string }) {
  const began = performance.now();
  const ws = makeWorkspace(scenario.files, 'stock');
  const sequence = model.context.getSequence();
  const probe = new SequenceProbe(sequence);
  const session = new LlamaChatSession({ contextSequence: sequence, systemPrompt: o.systemPrompt(ws.root) });
  const requests: RequestMeasure[] = [];
  const problems: string[] = [];
  let turnNo = 0;
  markRequests(session, probe, requests, () => turnNo);
  const functions: ChatSessionModelFunctions = Object.fromEntries(Object.entries(toolSchemas(o.promptsDir)).map(([name, schema]) => [
    name,
    defineChatSessionFunction({
      description: schema.description,
      params: schema.params as unknown as GbnfJsonObjectSchema,
      handler: async (params: unknown) => runPlainTool(ws.root, name, params as Record<string, unknown>),
    }),
  ]));
  const forced = forcedReply(model);
  const { tokenBias, play } = forcedStream(model);
  /** Where each kept turn's user message stands in the chat history. */
  const userAt = (history: ChatHistoryItem[]) => history.flatMap((item, i) => (item.type === 'user' ? [i] : []));
  const cutTo = (turn: number) => {
    const history = session.getChatHistory();
    session.setChatHistory(history.slice(0, userAt(history)[turn] ?? history.length));
  };
  try {
    for (const step of scenario.steps) {
      if (step.kind === 'undo') cutTo(userAt(session.getChatHistory()).length - 1);
      else if (step.kind === 'rewind') cutTo(step.index);
      else {
        if (step.kind === 'regenerate') cutTo(userAt(session.getChatHistory()).length - 1);
        turnNo++;
        const stream = step.turn.replies.flatMap(forced);
        play(stream);
        await session.prompt(step.turn.words, { functions, tokenBias });
        if (play.at() !== stream.length) problems.push(`step ${turnNo}: sampled ${play.at()} of the ${stream.length} scripted tokens`);
      }
    }
    return { requests, problems, elapsedMs: performance.now() - began };
  } finally {
    session.dispose({ disposeSequence: true });
    ws.remove();
  }
}
