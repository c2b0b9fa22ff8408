/**
 * Harness 2, stock node-llama-cpp: a LlamaChatSession with its default settings and the four tools
 * as defineChatSessionFunction, run on the same scripted replies. The replies are forced token by
 * token with a tokenBias function: each sampling step gives the next scripted token a logit of
 * 1e9. What a model sampling under LlamaChat's function-call grammars writes is scripted: the text,
 * the wrapper's call prefix, then the name and a newline (the name grammar), the JSON arguments and
 * four newlines (the params grammar), then the end token; each piece is tokenized alone so that no
 * forced token crosses from one grammar to the next. TokenBias.set skips end-of-generation tokens,
 * so the end token's bias is written into the bias map directly.
 *
 * Requests are the session's calls of LlamaChat.generateResponse (one per reply: the first, and one
 * after each round of function results); the bench wraps that method on the session's LlamaChat
 * instance to mark them.
 */
import {
  LlamaChatSession, LlamaText, TokenBias, defineChatSessionFunction, isLlamaText, resolveChatWrapper,
  type ChatSessionModelFunctions, type GbnfJsonObjectSchema, type Token,
} from 'node-llama-cpp';
import type { LoadedModel } from '../../main/llm/model.js';
import { pythonJson } from '../../main/llm/taggedCalls.js';
import { callSyntax } from '../../main/llm/toolCalls.js';
import { systemPromptEnd, type HarnessRun } from './keel.js';
import { SequenceProbe, type RequestMeasure } from './measure.js';
import type { Reply, Script } from './script.js';
import { makeWorkspace, runPlainTool, toolSchemas } from './tools.js';

export async function runStock(script: Script, model: LoadedModel, o: { systemPrompt: (root: string) => string; promptsDir: string; progress?: (msg: string) => void }): Promise<HarnessRun> {
  const began = performance.now();
  const ws = makeWorkspace(script.files, 'stock');
  const sequence = model.context.getSequence();
  const probe = new SequenceProbe(sequence);
  const systemPrompt = o.systemPrompt(ws.root);
  const session = new LlamaChatSession({ contextSequence: sequence, systemPrompt });
  const requests: RequestMeasure[] = [];
  const problems: string[] = [];
  let turnNo = 0;

  markRequests(session, probe, requests, () => turnNo);

  const ran: { name: string; args: unknown }[] = [];
  const functions: ChatSessionModelFunctions = Object.fromEntries(Object.entries(toolSchemas(o.promptsDir)).map(([name, schema]) => [
    name,
    defineChatSessionFunction({
      description: schema.description,
      params: schema.params as unknown as GbnfJsonObjectSchema,
      handler: async (params: unknown) => {
        ran.push({ name, args: params });
        return runPlainTool(ws.root, name, params as Record<string, unknown>);
      },
    }),
  ]));

  const m = model.model;
  const wrapper = resolveChatWrapper(m);
  const forced = forcedReply(model);
  const { tokenBias, play } = forcedStream(model);
  let stream: Token[] = [];
  let at = 0;

  try {
    for (const [i, turn] of script.turns.entries()) {
      turnNo = i + 1;
      stream = turn.replies.flatMap(forced);
      play(stream);
      const from = ran.length;
      const answer = await session.prompt(turn.words, { functions, tokenBias });
      at = play.at();
      if (at !== stream.length) problems.push(`turn ${turnNo}: sampled ${at} of the ${stream.length} scripted tokens`);
      const expected = turn.replies.filter((r) => r.call).map((r) => r.call!);
      const got = ran.slice(from);
      if (got.length !== expected.length || got.some((c, k) => c.name !== expected[k].name || JSON.stringify(c.args) !== JSON.stringify(expected[k].args))) {
        problems.push(`turn ${turnNo}: ran ${got.map((c) => c.name).join(', ') || 'no call'}, the script has ${expected.map((c) => c.name).join(', ') || 'none'}`);
      }
      const final = turn.replies[turn.replies.length - 1].text;
      // The session answers with all the text of the turn's replies; the last is the answer.
      if (!answer.endsWith(final)) problems.push(`turn ${turnNo}: answered ${JSON.stringify(answer.slice(0, 80))}`);
      if (turnNo % 10 === 0) o.progress?.(`stock: turn ${turnNo}/${script.turns.length}, prompt ${requests[requests.length - 1]?.prompt.length ?? 0} tokens`);
    }
    const first = requests[0];
    return {
      name: 'stock node-llama-cpp', requests, problems, elapsedMs: performance.now() - began,
      systemEnd: first ? systemPromptEnd(model, first.prompt, systemPrompt) : undefined,
      notes: [`chat wrapper ${wrapper.constructor.name}; LlamaChatSession defaults (function results JSON-encoded, context shift on)`],
    };
  } finally {
    session.dispose({ disposeSequence: true });
    ws.remove();
  }
}

/**
 * A scripted reply as the tokens a model sampling under LlamaChat's grammars writes (see above): its
 * reasoning in the wrapper's thought segment where it has one, the text, the call, the end token.
 */
export function forcedReply(model: LoadedModel): (r: Reply & { thought?: string }) => Token[] {
  const m = model.model;
  const wrapper = resolveChatWrapper(m);
  const syntax = callSyntax(wrapper);
  const eos = m.tokens.eos;
  if (eos === null) throw new Error('the model has no end token');
  const tok = (text: string, special = false) => m.tokenize(text, special);
  const thought = wrapper.settings.segments?.thought;
  // A segment the generation prompt opens already ('openedOnStart') starts with the thought itself.
  const open = thought && (typeof thought.prefix === 'string' || isLlamaText(thought.prefix)) ? thought.prefix : '';
  return (r) => [
    ...(r.thought && thought ? LlamaText([open, r.thought, thought.suffix ?? '']).tokenize(m.tokenizer) : []),
    ...(!r.call ? tok(r.text) : [
      ...(r.text ? tok(`${r.text}${syntax.separator}`) : []),
      ...LlamaText(wrapper.settings.functions.call.prefix).tokenize(m.tokenizer),
      ...tok(`${r.call.name}\n`),
      ...tok(pythonJson(r.call.args)),
      ...tok('\n\n\n\n'),
    ]),
    eos,
  ];
}

/** Request boundaries: each generateResponse of the session's LlamaChat is measured by the probe, as turn `turn()`. */
export function markRequests(session: LlamaChatSession, probe: SequenceProbe, requests: RequestMeasure[], turn: () => number): void {
  const chat = (session as unknown as { _chat?: { generateResponse: (...args: unknown[]) => Promise<unknown> } })._chat;
  if (!chat) throw new Error('LlamaChatSession has no _chat: the bench cannot mark requests on this node-llama-cpp version');
  const generate = chat.generateResponse.bind(chat);
  chat.generateResponse = async (...args: unknown[]) => {
    probe.begin(turn());
    try {
      return await generate(...args);
    } finally {
      requests.push(probe.end());
    }
  };
}

/** A token bias that forces the tokens `play` was given, one each sampling step; `play.at()` says how many were sampled. */
export function forcedStream(model: LoadedModel) {
  let stream: Token[] = [];
  let at = 0;
  const tokenBias = () => {
    const bias = new TokenBias(model.model.tokenizer);
    const token = stream[at++];
    // TokenBias.set ignores end-of-generation tokens; the map it fills is what the sampler reads.
    if (token !== undefined) (bias as unknown as { _biases: Map<Token, number> })._biases.set(token, 1e9);
    return bias;
  };
  const play = Object.assign((tokens: Token[]) => {
    stream = tokens;
    at = 0;
  }, { at: () => at });
  return { tokenBias, play };
}
