import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { architectureModel } from '../llm/testModel/architectureModels.js';
import { writeTestModel } from '../llm/testModel/makeTestModel.js';
import { TEMPLATES_DIR, templateModelOptions } from '../llm/testModel/templates.js';

const ARCHITECTURE_TEMPLATES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../llm/testModel/templates');
import { cli } from '../../test/cliRun.js';

const KEYS = ['template', 'wrapper', 'prefixStable', 'firstDivergence', 'calls', 'newTokens', 'idealNewTokens', 'losses', 'unexplained', 'error', 'supported'];

describe('keel check-template and check-model', { timeout: 240_000 }, () => {
  it('runs the scripted session on a template under a real name and prints one JSON line; exit 0 when supported', async () => {
    const r = await cli('check-template', path.join(TEMPLATES_DIR, 'qwen2.5.jinja'), '--name', 'Qwen2.5 7B Instruct', '--size-label', '7B', '--json');
    expect(r.out.trim().split('\n')).toHaveLength(1);
    const report = JSON.parse(r.out);
    for (const key of KEYS) expect(report).toHaveProperty(key);
    expect(report).toMatchObject({ wrapper: 'QwenChatWrapper', calls: { written: 4, parsed: 4, run: 4 }, unexplained: 0, error: null, supported: true });
    expect(r.code).toBe(0);
  });

  it('names the model file of a template whose calls no reader reads, and exits 1', async () => {
    // Tools shown, a call written as its bare name and arguments right after the turn's header: no call prefix to read.
    const template = [
      '{%- for t in tools %}{{ t.function.name }}: {{ t.function.description }}\n{% endfor %}',
      "{%- for m in messages %}{% if m.role == 'assistant' %}<|assistant|>{% if m.tool_calls %}{% for c in m.tool_calls %}",
      '{{ c.function.name }} {{ c.function.arguments|tojson }}{% endfor %}{% else %}{{ m.content }}{% endif %}<|end|>',
      "{% else %}<|{{ m.role }}|>{{ m.content }}<|end|>{% endif %}{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}",
    ].join('');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-check-template-'));
    const file = path.join(dir, 'bare-calls.jinja');
    fs.writeFileSync(file, template);
    try {
      const r = await cli('check-template', file, '--json');
      const report = JSON.parse(r.out);
      expect(report.supported).toBe(false);
      expect(report.error).toMatch(/\.gguf: .*neither node-llama-cpp nor Keel reads the calls it writes/);
      expect(r.code).toBe(1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  // Templates from llama.cpp's own collection (copied unchanged into main/llm/testModel/templates) that
  // llama.cpp renders and Keel once did not: integer dict keys (Seed-OSS), str.format (Hunyuan), a
  // variable joined while undefined (FireFunction v2's `functions`), tool descriptions read unguarded (Apertus).
  it.each([
    ['ByteDance-Seed-OSS', 'Object keys must be strings'],
    ['tencent-Hy3', 'not a function'],
    ['fireworks-ai-llama-3-firefunction-v2', 'functions is not given'],
    ['Apertus-8B-Instruct', 'on undefined values'],
  ])('renders %s as llama.cpp does, with its own template', async (name, once) => {
    const file = path.join(ARCHITECTURE_TEMPLATES, `${name}.jinja`);
    const r = await cli('check-template', file, '--json');
    const report = JSON.parse(r.out);
    expect(report.error ?? '').not.toContain(once);
    expect(report).toMatchObject({ wrapper: expect.stringMatching(/^(JinjaTemplateChatWrapper|TemplateToolsWrapper)$/), calls: { written: 4, parsed: 4, run: 4 }, unexplained: 0, error: null, supported: true });
    expect(r.code).toBe(0);
  });

  // Templates whose arguments are keys and values, not one JSON object (GLM's `<arg_key>`, Qwen3-Coder's
  // and Qwen3.5's `<parameter=k>`, Seed-OSS, Hunyuan, LFM2.5's `[name(k='v')]`): the calls are written as the template
  // itself writes them and read back by the syntax learnt from it (node-llama-cpp wrote them as one
  // `params` key holding JSON, which a real model never writes; GLM-4.6 and LFM2.5 were not read at all).
  it.each([
    ['GLM-4.6', '<tool_call>'], ['GLM-4.7-Flash', '<tool_call>'], ['Qwen3-Coder', '<tool_call>\n<function='], ['Qwen3.5-4B', '<tool_call>\n<function='],
    ['ByteDance-Seed-OSS', '<seed:tool_call>\n<function='], ['tencent-Hy3', '<tool_calls:opensource>\n<tool_call:opensource>'],
    ['LFM2.5-8B-A1B', '<|tool_call_start|>['],
  ])('reads %s calls as its template writes their keys and values', async (name, prefix) => {
    const r = await cli('check-template', path.join(ARCHITECTURE_TEMPLATES, `${name}.jinja`), '--json');
    const report = JSON.parse(r.out);
    expect(report).toMatchObject({ wrapper: 'TemplateToolsWrapper', callFormat: prefix, calls: { written: 4, parsed: 4, run: 4 }, error: null, supported: true });
  });

  // Muse Glimmer (llama.cpp's muse-glimmer.jinja): recipient messages, reasoning to=self, calls as ATEM blocks of
  // one parameter per argument (node-llama-cpp's Muse wrapper wrote one `params` of JSON, and ended words before a
  // call with the turn's end, where a model stops: two of the four calls were lost).
  it('reads Muse Glimmer calls as its template writes them, its words before a call ending the message, not the turn', async () => {
    const r = await cli('check-template', path.join(ARCHITECTURE_TEMPLATES, 'muse-glimmer.jinja'), '--json');
    expect(JSON.parse(r.out)).toMatchObject({
      wrapper: 'MuseAtemWrapper', callFormat: ' to=', reasoning: true, calls: { written: 4, parsed: 4, run: 4 }, prefixStable: true, error: null, supported: true,
    });
    expect(r.code).toBe(0);
  });

  it('runs Functionary v3.2 on its own template, its calls read after the `>>>` its generation prompt ends in', async () => {
    const r = await cli('check-template', path.join(TEMPLATES_DIR, 'functionary-v3.2.jinja'), '--name', 'Functionary Medium v3.2', '--size-label', '70B', '--json');
    expect(JSON.parse(r.out)).toMatchObject({ wrapper: 'TemplateToolsWrapper', callFormat: '>>>', calls: { written: 4, parsed: 4, run: 4 }, unexplained: 0, error: null, supported: true });
    expect(r.code).toBe(0);
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

  it('says how a hybrid model\'s cache is kept: its class, checkpoints, and what one costs', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-check-model-'));
    const file = path.join(dir, 'qwen35.gguf');
    writeTestModel(file, architectureModel('qwen35'));
    try {
      const r = await cli('check-model', file);
      expect(r.out).toMatch(/architecture +qwen35: hybrid/);
      expect(r.out).toMatch(/cache reuse +checkpoints/);
      expect(r.out).toMatch(/KV checkpoints +about [\d.]+ kB each, up to [\d.]+ [MG]B per session/);
      const json = JSON.parse((await cli('check-model', file, '--json')).out);
      expect(json.cache).toMatchObject({ architecture: { name: 'qwen35', class: 'hybrid' }, strategy: { value: 'checkpoints' } });
      expect(json.cache.checkpointBytes).toBeGreaterThan(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("gives a template the model's special tokens as Hugging Face does, and names a variable still missing with its line", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-check-template-'));
    // The token is called on (`.strip()`), which fails when it is missing in llama.cpp's engine as in Python's: a
    // missing value merely joined to a string reads as "" in llama.cpp's, and so in Keel's.
    const turns = "{% for m in messages %}{{ '<|im_start|>' + m.role + '\\n' + m.content + '<|im_end|>' + TOKEN.strip() + '\\n' }}{% endfor %}";
    const template = (token: string) => `{{ bos_token + '' }}\n${turns.replace('TOKEN', token)}\n{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}`;
    try {
      // pad_token: the test model has one (tokenizer.ggml.padding_token_id), so the template renders as written.
      fs.writeFileSync(path.join(dir, 'pad.jinja'), template('pad_token'));
      const logged = vi.spyOn(console, 'error');
      const pad = await cli('check-template', path.join(dir, 'pad.jinja'), '--json');
      expect(JSON.parse(pad.out)).toMatchObject({ wrapper: 'JinjaTemplateChatWrapper', error: null, supported: true });
      // node-llama-cpp's fallback, which prints its stack trace, is never taken.
      expect(logged.mock.calls.flat().join(' ')).not.toMatch(/Error creating Jinja template/);
      logged.mockRestore();
      // sep_token: no such token in the model, as in Hugging Face's special_tokens_map; named, with its line.
      fs.writeFileSync(path.join(dir, 'sep.jinja'), template('sep_token'));
      const sep = await cli('check-template', path.join(dir, 'sep.jinja'), '--json');
      const report = JSON.parse(sep.out);
      expect(report.supported).toBe(false);
      expect(report.error).toMatch(/the variable sep_token is not given at line 2 \(\{% for m in messages %\}.*: Cannot call something that is not a function/);
      expect(sep.code).toBe(1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
