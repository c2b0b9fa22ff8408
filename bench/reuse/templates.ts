/**
 * Keel on each shared chat template that supports tools: a tiny generated model carrying the
 * template and its special tokens, and a short scripted session (the first turns of the main
 * script), through the real Agent. Prints each template's ratio to the ideal and every loss with
 * the cause Keel recorded. A template whose run throws is reported and the next one runs; what went
 * wrong (a throw, a script not followed) is also returned among `problems`, for the bench's exit.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadModel } from '../../main/llm/model.js';
import { sessionWrapper } from '../../main/llm/wrapper.js';
import { writeTestModel } from '../../main/llm/testModel/makeTestModel.js';
import { TEMPLATE_NAMES, templateModelOptions } from '../../main/llm/testModel/templates.js';
import { runKeel } from './keel.js';
import { classify, divergence, fmt, ratio } from './report.js';
import type { Script } from './script.js';

export async function runTemplates(script: Script, progress: (msg: string) => void): Promise<{ lines: string[]; problems: string[] }> {
  const out: string[] = [];
  const problems: string[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-reuse-templates-'));
  const replies = script.turns.flatMap((t) => t.replies);
  try {
    const only = process.env.KEEL_REUSE_TEMPLATES?.split(',');
    for (const name of TEMPLATE_NAMES.filter((n) => !only || only.includes(n))) {
      const options = templateModelOptions(name);
      if (!/\btools\b/.test(options.template ?? '')) {
        out.push(`${name}: skipped, the template has no tools`);
        continue;
      }
      progress(`templates: ${name}`);
      const file = path.join(dir, `${name}.gguf`);
      writeTestModel(file, options);
      // Room for the whole session on every template (some, command-r7b, spend ~3k tokens more on their own framing):
      // the script has no summary to give, so Keel must not compact.
      const model = await loadModel({ modelPath: file, threads: 1, contextSize: 32768 });
      try {
        const wrapperName = sessionWrapper(model.model, '2026-01-01').constructor.name;
        const run = await runKeel(script, model, { label: name });
        classify(run, replies, model, []);
        const rs = run.requests;
        const newTokens = rs.reduce((n, r) => n + r.newTokens, 0);
        const ideal = rs.reduce((n, r) => n + r.ideal, 0);
        const prompt = rs.reduce((n, r) => n + r.prompt.length, 0);
        const reused = rs.reduce((n, r) => n + r.reused, 0);
        const losses = rs.map((r, i) => ({ r, i })).filter(({ r }) => r.lost > 0 || r.cause);
        out.push(
          `${name} (${wrapperName}): ${rs.length} requests, ${fmt(newTokens)} new tokens against ${fmt(ideal)} ideal = ${ratio(newTokens, ideal)}; ` +
          `reused ${(100 * reused / Math.max(1, prompt)).toFixed(1)}% of ${fmt(prompt)} prompt tokens; ${losses.length} ${losses.length === 1 ? 'loss' : 'losses'}`,
        );
        for (const { r, i } of losses) {
          out.push(`  request ${i + 1} (turn ${r.turn}): lost ${fmt(r.lost)} of ${fmt(r.cachedBefore)} cached tokens — ${r.cause ?? 'no cause recorded'}; ${i > 0 ? divergence(model, rs[i - 1], r) : ''}`);
        }
        for (const p of run.problems) out.push(`  script problem: ${p}`);
        problems.push(...run.problems.map((p) => `template ${name}: ${p}`));
      } catch (err) {
        out.push(`${name}: FAILED in Keel: ${(err as Error).stack?.split('\n').slice(0, 4).join(' | ') ?? String(err)}`);
        problems.push(`template ${name}: failed: ${(err as Error).message ?? String(err)}`);
      } finally {
        await model.dispose();
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return { lines: out, problems };
}
