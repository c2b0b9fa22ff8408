import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeTestModel } from '../llm/testModel/makeTestModel.js';
import { TEMPLATES_DIR, templateModelOptions } from '../llm/testModel/templates.js';
import { runCli } from './index.js';

async function cli(...argv: string[]) {
  const chunks = { out: [] as string[], err: [] as string[] };
  const code = await runCli(argv, { out: { write: (t: string) => chunks.out.push(t) }, err: { write: (t: string) => chunks.err.push(t) } });
  return { code, out: chunks.out.join(''), err: chunks.err.join('') };
}

const KEYS = ['template', 'wrapper', 'prefixStable', 'firstDivergence', 'calls', 'newTokens', 'idealNewTokens', 'losses', 'unexplained', 'error', 'supported'];

describe('keel check-template and check-model', { timeout: 240_000 }, () => {
  it('runs the scripted session on a template under a real name and prints one JSON line; exit 0 when supported', async () => {
    const r = await cli('check-template', path.join(TEMPLATES_DIR, 'qwen2.5.jinja'), '--name', 'Qwen2.5 7B Instruct', '--size-label', '7B', '--json');
    expect(r.out.trim().split('\n')).toHaveLength(1);
    const report = JSON.parse(r.out);
    for (const key of KEYS) expect(report).toHaveProperty(key);
    expect(report).toMatchObject({ wrapper: 'QwenChatWrapper', calls: { written: 3, parsed: 3, run: 3 }, unexplained: 0, error: null, supported: true });
    expect(r.code).toBe(0);
  });

  it('names the model file of a template whose calls no reader reads (Functionary v3.2), and exits 1', async () => {
    const r = await cli('check-template', path.join(TEMPLATES_DIR, 'functionary-v3.2.jinja'), '--json');
    const report = JSON.parse(r.out);
    expect(report.supported).toBe(false);
    expect(report.error).toMatch(/\.gguf: .*neither node-llama-cpp nor Keel reads the calls it writes/);
    expect(r.code).toBe(1);
  });

  it('runs the same session on a model file with its own template and tokenizer', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-check-model-'));
    const file = path.join(dir, 'llama-3.2.gguf');
    writeTestModel(file, templateModelOptions('llama-3.2'));
    try {
      const r = await cli('check-model', file, '--json');
      const report = JSON.parse(r.out);
      // Llama 3.2 under its real name: the lightweight wrapper, with the session's date, never the machine's.
      expect(report).toMatchObject({ template: 'llama-3.2.gguf', wrapper: 'Llama3_2LightweightChatWrapper', supported: true });
      expect(r.code).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
