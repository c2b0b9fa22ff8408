import fs from 'node:fs';
import path from 'node:path';
import { checkSession, type TemplateReport } from '../checkSession.js';
import { doctor } from '../../llm/doctor.js';
import { templateTokensFor } from '../../llm/testModel/templates.js';
import { formatCache } from './doctor.js';
import { CliError, type Io } from '../io.js';

/**
 * `keel check-template FILE.jinja [--name NAME] [--size-label LABEL] [--json]`: a test GGUF carrying
 * the template (its special tokens, BOS and EOS as the template uses them) under that name and size
 * label, through Keel's standard scripted session. `keel check-model FILE.gguf [--json]`: the same
 * session on a real model, its own template and tokenizer, and how Keel keeps its cache (the
 * architecture's class, the strategy, what checkpoints cost; with default settings, on this
 * machine, as `keel doctor` plans it). Exit 0 when supported.
 */
export async function checkTemplateCommand(file: string, o: { name?: string; sizeLabel?: string; json: boolean }, io: Io): Promise<boolean> {
  if (!fs.existsSync(file)) throw new CliError(`No template file ${file}.`);
  const template = fs.readFileSync(file, 'utf8');
  const tokens = templateTokensFor(template);
  const report = await checkSession(path.basename(file, '.jinja'), {
    template, specialTokens: tokens.specialTokens, bos: tokens.bos, eos: tokens.eos, architecture: tokens.architecture ?? 'llama',
    name: o.name ?? tokens.name, sizeLabel: o.sizeLabel ?? tokens.sizeLabel,
  });
  io.out.write(o.json ? `${JSON.stringify(report)}\n` : formatReport(report));
  return report.supported;
}

export async function checkModelCommand(file: string, json: boolean, io: Io): Promise<boolean> {
  if (!fs.existsSync(file)) throw new CliError(`No model file ${file}.`);
  const plan = (await doctor({ modelPath: file }).catch((e: Error) => {
    throw new CliError(e.message);
  })).model;
  const report = { ...await checkSession(path.basename(file), { file: path.resolve(file) }), ...(plan && { cache: plan.cache }) };
  io.out.write(json ? `${JSON.stringify(report)}\n` : `${formatReport(report)}${plan ? `cache (default settings, this machine)\n${formatCache(plan.cache)}` : ''}`);
  return report.supported;
}

export function formatReport(r: TemplateReport): string {
  const lines = [
    `${r.template}: ${r.supported ? 'supported' : 'NOT supported'}`,
    `  wrapper          ${r.wrapper}`,
    `  call format      ${JSON.stringify(r.callFormat)}`,
    `  reasoning        ${r.reasoning ? 'yes' : 'no'}`,
    `  calls            ${r.calls.written} written, ${r.calls.parsed} parsed, ${r.calls.run} run`,
    `  new tokens       ${r.newTokens} (ideal ${r.idealNewTokens}${r.idealNewTokens > 0 ? `, ${(r.newTokens / r.idealNewTokens).toFixed(2)}×` : ''})`,
    `  prefix stable    ${r.prefixStable ? 'yes' : `no, first divergence at token ${r.firstDivergence}`}`,
    ...r.losses.map((l) => `  loss             request ${l.request}: ${l.tokens} tokens (${l.cause})`),
    ...(r.unexplained ? [`  unexplained      ${r.unexplained}`] : []),
    ...(r.error ? [`  error            ${r.error}`] : []),
  ];
  return `${lines.join('\n')}\n`;
}
