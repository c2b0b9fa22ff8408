/**
 * The price of a cache break, told before it is paid (issue 36), against what it cost: after the
 * scripted session, Keel prices each action a person takes on a long session — an undo, a delete
 * of a middle turn, a rewind three quarters back, a compaction, a switch to another engine — then
 * takes it and sends the next message (the stand-in the price was computed with), and the
 * request's measured prefill is set beside the prediction. The context view of that request is
 * checked on the way: its parts sum to the prompt tokens the engine reports.
 */
import type { AgentLoop, PricedAction } from '../../main/core/turn/loop.js';
import { NEXT_MESSAGE } from '../../main/core/turn/loop.js';
import { openEngine } from '../../main/openEngine.js';
import type { MeasuredRequest } from '../../main/core/price/prefillSpeed.js';
import type { LoadedModel } from '../../main/llm/model.js';
import type { Reply } from '../../main/llm/testModel/nativeReplies.js';

export interface PricedRun {
  action: string;
  exact: boolean;
  predictedTokens: number;
  actualTokens: number;
  predictedMs: number;
  actualMs: number;
  /** The request the action left, as the fit reads it (the next action's price learns from it too). */
  row: MeasuredRequest;
}

export async function priceActions(
  agent: AgentLoop, model: LoadedModel, replies: string[], render: (r: Reply) => string, problems: string[],
): Promise<PricedRun[]> {
  const seqs = () => agent.session.turns().map((t) => t.seq);
  const runs: PricedRun[] = [];
  const take = async (label: string, action: PricedAction, act: () => Promise<unknown>) => {
    const price = await agent.priceOf(action);
    await act();
    // The context view of the very request about to be sent: its parts sum to the prompt the engine then reports.
    const view = await agent.context();
    replies.push(render({ text: 'Noted.' }));
    await agent.send(NEXT_MESSAGE);
    const row = agent.requests().at(-1)!;
    const summed = view.parts.reduce((n, p) => n + p.tokens, 0);
    if (summed !== row.promptTokens || view.promptTokens !== row.promptTokens) problems.push(`context view after ${label}: parts sum to ${summed}, the request's prompt is ${row.promptTokens} tokens`);
    const run = {
      action: label, exact: price.exact, predictedTokens: price.nextTokens, actualTokens: row.newTokens,
      predictedMs: (price.nextSeconds ?? 0) * 1000, actualMs: row.prefillMs,
      row: { newTokens: row.newTokens, reusedTokens: row.reusedTokens, prefillMs: row.prefillMs },
    };
    if (price.exact && run.predictedTokens !== run.actualTokens) problems.push(`price of ${label}: ${run.predictedTokens} tokens predicted, ${run.actualTokens} read`);
    runs.push(run);
  };
  await take('undo', { kind: 'take back', turn: seqs().at(-1)! }, async () => agent.undo());
  const middle = seqs()[Math.floor(seqs().length / 2)];
  await take('delete a middle turn', { kind: 'delete', turn: middle }, async () => agent.deleteTurn(middle));
  const back = seqs()[Math.floor(seqs().length * 3 / 4)];
  await take('rewind 3/4 back', { kind: 'take back', turn: back }, async () => agent.rewindTo(back));
  await take('switch model', { kind: 'switch model' }, () => agent.switchEngine(openEngine({ kind: 'local', model })));
  await take('compact', { kind: 'compact' }, () => {
    replies.push(render({ text: 'Summary: the workspace was read, edited and tested turn by turn; the tests pass; nothing is left to do.' }));
    return agent.compact();
  });
  return runs;
}

/** The table, and the ratio farthest from 1 (`price predicted/actual: X.XX (worst)`). */
export function priceLines(runs: PricedRun[]): string[] {
  if (runs.length === 0) return [];
  const ratio = (r: PricedRun) => r.predictedMs / Math.max(r.actualMs, 1e-9);
  const worst = runs.reduce((w, r) => (Math.abs(Math.log(ratio(r))) > Math.abs(Math.log(ratio(w))) ? r : w));
  return [
    'Price of a cache break, told before it is paid (Keel, after the session; predicted from its own prefill measures):',
    ...runs.map((r) => `  ${r.action.padEnd(22)} ${String(r.predictedTokens).padStart(6)} tokens predicted${r.exact ? '' : ' (estimate)'}, ${String(r.actualTokens).padStart(6)} read; ${(r.predictedMs / 1000).toFixed(2)} s predicted, ${(r.actualMs / 1000).toFixed(2)} s measured: ${ratio(r).toFixed(2)}`),
    `price predicted/actual: ${ratio(worst).toFixed(2)} (worst)`,
  ];
}
