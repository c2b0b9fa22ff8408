/**
 * Harness 3, a naive loop on a raw sequence: each request renders the whole history with the
 * model's chat wrapper and tokenizes it from text, keeps the cache as far as the tokens match
 * (compareContextTokens), erases the rest and evaluates the differing tail. Two habits of simple
 * harnesses break the prefix: the date in the system prompt (it changes at midnight, at the
 * script's new day), and pruning old tool output in place (results of turns older than the last
 * KEEP_TURNS are replaced with "[pruned]"). It stores what a server's parser would: the reply's
 * text trimmed, and each call as its name and parsed arguments.
 */
import {
  LlamaText, TokenBias, resolveChatWrapper,
  type ChatHistoryItem, type ChatModelResponse, type Token,
} from 'node-llama-cpp';
import type { LoadedModel } from '../../main/llm/model.js';
import { systemPromptEnd, type HarnessRun } from './keel.js';
import { commonPrefix, SequenceProbe, type RequestMeasure } from './measure.js';
import type { Script } from './script.js';
import { nativeReplies } from '../../main/llm/testModel/nativeReplies.js';
import { makeWorkspace, plainFunctions, runPlainTool } from './tools.js';

/** Tool results of turns older than the last KEEP_TURNS are pruned (KEEL_REUSE_KEEP=<n> to change). */
export const KEEP_TURNS = Number(process.env.KEEL_REUSE_KEEP ?? 4);
const DATES = ['Monday, November 30, 2026', 'Tuesday, December 1, 2026'];

interface Item {
  turn: number;
  text: string;
  call?: { name: string; params: Record<string, string>; result: string };
}

/** What the naive harness knows about a request beyond the probe: where its own rewrites start. */
export interface NaiveRequest extends RequestMeasure {
  datePos?: number;
  prunePos?: number;
}

export async function runNaive(script: Script, model: LoadedModel, o: { systemPrompt: (root: string) => string; promptsDir: string; progress?: (msg: string) => void }): Promise<HarnessRun> {
  const began = performance.now();
  const ws = makeWorkspace(script.files, 'naive');
  const m = model.model;
  const sequence = model.context.getSequence();
  const probe = new SequenceProbe(sequence);
  const wrapper = resolveChatWrapper(m);
  const base = o.systemPrompt(ws.root);
  const functions = plainFunctions(o.promptsDir);
  const native = nativeReplies(m, wrapper, functions);
  const requests: NaiveRequest[] = [];
  const problems: string[] = [];
  const users: string[] = [];
  const responses: Item[][] = [];

  const system = (day: number) => `${base}\n\nCurrent date: ${DATES[day]}.`;
  const render = (day: number, keepFrom: number): Token[] => {
    const chatHistory: ChatHistoryItem[] = [{ type: 'system', text: system(day) }];
    users.forEach((words, t) => {
      chatHistory.push({ type: 'user', text: words });
      const response: ChatModelResponse['response'][number][] = [];
      for (const item of responses[t] ?? []) {
        if (item.text) response.push(item.text);
        if (item.call) {
          const result = item.turn < keepFrom ? '[pruned]' : item.call.result;
          response.push({ type: 'functionCall', name: item.call.name, params: item.call.params, result });
        }
      }
      chatHistory.push({ type: 'model', response });
    });
    return wrapper.generateContextState({ chatHistory, availableFunctions: functions }).contextText.tokenize(m.tokenizer);
  };

  const prefix = LlamaText(wrapper.settings.functions.call.prefix).toString();
  const paramsPrefix = LlamaText(wrapper.settings.functions.call.paramsPrefix).toString();
  const suffix = LlamaText(wrapper.settings.functions.call.suffix).toString();
  /** The naive parser: text before the prefix, the name up to the params prefix, JSON up to the suffix. */
  const parse = (text: string) => {
    const at = text.indexOf(prefix);
    if (at < 0) return { text: text.trim() };
    const nameEnd = text.indexOf(paramsPrefix, at + prefix.length);
    const end = text.lastIndexOf(suffix);
    const name = text.slice(at + prefix.length, nameEnd);
    const params = JSON.parse(text.slice(nameEnd + paramsPrefix.length, end)) as Record<string, string>;
    return { text: text.slice(0, at).trim(), call: { name, params } };
  };

  let lastDay = 0;
  let lastKeepFrom = 0;
  try {
    for (const [i, turn] of script.turns.entries()) {
      const turnNo = i + 1;
      const day = turn.newDay || lastDay === 1 ? 1 : 0;
      users.push(turn.words);
      responses.push([]);
      const keepFrom = Math.max(0, users.length - KEEP_TURNS);
      for (const reply of turn.replies) {
        const tokens = render(day, keepFrom);
        const datePos = day !== lastDay ? commonPrefix(render(lastDay, keepFrom), tokens) : undefined;
        const prunePos = keepFrom !== lastKeepFrom ? commonPrefix(render(day, lastKeepFrom), tokens) : undefined;
        lastDay = day;
        lastKeepFrom = keepFrom;

        probe.begin(turnNo);
        const cached = sequence.nextTokenIndex;
        const firstDiff = sequence.compareContextTokens(tokens).firstDifferentIndex;
        const start = Math.min(firstDiff, tokens.length - 1);
        if (start < cached) await sequence.eraseContextTokenRanges([{ start, end: cached }]);
        const want = m.tokenize(native(reply), true);
        const generated: Token[] = [];
        for await (const token of sequence.evaluate(tokens.slice(start), {
          temperature: 0,
          tokenBias: () => {
            const bias = new TokenBias(m.tokenizer);
            const next = want[generated.length];
            if (next !== undefined) bias.set(next, { logit: 1e9 });
            return bias;
          },
          yieldEogToken: true,
        })) {
          generated.push(token);
          if (generated.length >= want.length) break;
        }
        const r: NaiveRequest = { ...probe.end(), datePos, prunePos };
        requests.push(r);

        const parsed = parse(m.detokenize(generated, true));
        const item: Item = { turn: users.length - 1, text: parsed.text };
        if (parsed.call) {
          if (JSON.stringify(parsed.call.params) !== JSON.stringify(reply.call?.args)) problems.push(`turn ${turnNo}: parsed ${parsed.call.name} ${JSON.stringify(parsed.call.params)}`);
          item.call = { ...parsed.call, result: await runPlainTool(ws.root, parsed.call.name, parsed.call.params) };
        } else if (parsed.text !== reply.text) problems.push(`turn ${turnNo}: answered ${JSON.stringify(parsed.text.slice(0, 80))}`);
        responses[responses.length - 1].push(item);
      }
      if (turnNo % 10 === 0) o.progress?.(`naive: turn ${turnNo}/${script.turns.length}, prompt ${requests[requests.length - 1]?.prompt.length ?? 0} tokens`);
    }
    const first = requests[0];
    return {
      name: 'naive', requests, problems, elapsedMs: performance.now() - began,
      systemEnd: first ? systemPromptEnd(model, first.prompt, system(0)) : undefined,
      notes: [`date in the system prompt (changes at turn ${script.turns.findIndex((t) => t.newDay) + 1}); results of turns older than the last ${KEEP_TURNS} pruned in place; history re-tokenized from text every request`],
    };
  } finally {
    sequence.dispose();
    ws.remove();
  }
}
