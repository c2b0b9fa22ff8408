import { engineFixture, type EngineFixture } from '../engineFixture.js';
import { generationOpensThought } from '../llm/generationPrompt.js';
import { thoughtMarkers } from '../llm/thoughts.js';
import { nativeReplies } from '../llm/testModel/nativeReplies.js';
import { toolFunctions } from '../llm/history.js';
import type { TestModelOptions } from '../llm/testModel/makeTestModel.js';
import { sessionWrapper, wrapperProblem } from '../llm/wrapper.js';

/**
 * Keel's standard scripted session (check-template, check-model, check:templates), on the real
 * engine: several user turns, tool calls with their results, an unchanged re-read answered with a
 * stub, an edit, a date change, an empty reply, reasoning where the template opens it. Replies are
 * forced from text written the way the model's own wrapper renders a model turn, so a session runs
 * in seconds and what Keel reads back was not written by Keel's reader.
 */
export interface TemplateReport {
  template: string;
  wrapper: string;
  /** How calls are written (the prefix), and whether replies carry reasoning. */
  callFormat: string;
  reasoning: boolean;
  prefixStable: boolean;
  /** The first token index where a request reused less than the cache held, or null. */
  firstDivergence: number | null;
  calls: { written: number; parsed: number; run: number };
  newTokens: number;
  /** New tokens an append-only prompt would have needed: each request's tokens beyond what the cache held. */
  idealNewTokens: number;
  losses: { request: number; tokens: number; cause: string }[];
  /** Losses without a true cause that is the template's own doing. */
  unexplained: number;
  error: string | null;
  supported: boolean;
}

/** Causes that are the template's (or its tokenizer's) own doing, never Keel's. */
const TEMPLATE_CAUSES = new Set(['template re-rendered earlier text', 'reply re-tokenized']);

export async function checkSession(label: string, model: TestModelOptions | { file: string }): Promise<TemplateReport> {
  let f: EngineFixture | undefined;
  const report: TemplateReport = {
    template: label, wrapper: '', callFormat: '', reasoning: false, prefixStable: false, firstDivergence: null,
    calls: { written: 0, parsed: 0, run: 0 }, newTokens: 0, idealNewTokens: 0, losses: [], unexplained: 0, error: null, supported: false,
  };
  try {
    f = await engineFixture({
      ...('file' in model ? { modelFile: model.file } : { model }),
      files: { 'a.txt': 'alpha\nbeta\n' }, now: new Date('2031-03-04T10:00:00'),
    });
    const wrapper = sessionWrapper(f.model.model, f.agent.session.promptDate);
    report.wrapper = wrapper.constructor.name;
    report.error = wrapperProblem(wrapper) ?? null;
    const syntax = f.syntax();
    report.callFormat = syntax.prefix;
    report.reasoning = generationOpensThought(wrapper) !== undefined || thoughtMarkers(wrapper) !== undefined;
    const write = nativeReplies(f.model.model, wrapper, toolFunctions(f.agent.session.tools));
    // Where the template reasons, every reply reasons first (written as the wrapper writes it).
    const thought = report.reasoning ? 'Let me look.' : undefined;
    const call = (name: string, args: unknown, text = '') => {
      report.calls.written++;
      return write({ thought, text, call: { name, args } });
    };
    const answer = (text: string) => write({ thought, text });
    f.replies.push(call('read', { path: 'a.txt' }), answer('It says alpha and beta.'));
    await f.agent.send('What is in a.txt?');
    // Words before a call, as models write them.
    f.replies.push(call('read', { path: 'a.txt' }, 'Let me read it again.'), answer('Still alpha and beta.'));
    await f.agent.send('Read it again.');
    f.replies.push('');
    await f.agent.send('Say nothing.');
    f.setNow(new Date('2031-03-05T08:00:00'));
    // Several calls in one turn, the second with words before it.
    f.replies.push(call('edit', { path: 'a.txt', old_string: 'beta', new_string: 'gamma' }), call('read', { path: 'a.txt' }, 'Let me check it.'), answer('Changed.'));
    await f.agent.send('Change beta to gamma.');
    f.replies.push(answer('Done.'));
    await f.agent.send('Thanks.');

    const tools = f.events.filter((e) => e.type === 'tool');
    report.calls.parsed = tools.length;
    report.calls.run = tools.filter((e) => e.type === 'tool' && e.result.kind !== 'error').length;
    for (const r of f.agent.requests()) {
      report.newTokens += r.newTokens;
      report.idealNewTokens += Math.max(0, r.promptTokens - Math.max(r.cachedBefore, 0));
      if (r.reusedTokens < r.cachedBefore) {
        report.losses.push({ request: r.id, tokens: r.cachedBefore - r.reusedTokens, cause: r.cause ?? 'none given' });
        report.firstDivergence ??= r.reusedTokens;
      }
    }
    // The ideal counts what the cache held; a loss re-reads it, so it is added back only for real growth.
    report.idealNewTokens = Math.min(report.idealNewTokens, report.newTokens);
    report.prefixStable = report.losses.length === 0;
    report.unexplained = report.losses.filter((l) => !TEMPLATE_CAUSES.has(l.cause)).length;
  } catch (e) {
    report.error = (e as Error).message;
  } finally {
    await f?.dispose();
  }
  const { written, parsed, run } = report.calls;
  report.supported = report.error === null && written === parsed && parsed === run && report.unexplained === 0;
  return report;
}
