import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import { renderFailure, standardContext } from './templateContext.js';
import { readTemplate, TEMPLATE_NAMES, TEMPLATE_TOKENS } from './testModel/templates.js';
import { withFixedDate } from './wrapper.js';

// What a template is given, as Hugging Face's apply_chat_template gives it, on the real shared templates.
describe('the template context', () => {
  const usesBos = TEMPLATE_NAMES.filter((name) => /\bbos_token\b/.test(readTemplate(name)));

  it('finds the shared templates that read bos_token', () => {
    expect(usesBos).toEqual(expect.arrayContaining(['functionary-v3.2', 'gemma-2', 'llama-3.3', 'mistral-small-3.2', 'command-r7b', 'deepseek-v3.1']));
  });

  it('renders every shared template that reads bos_token with the real BOS and EOS texts, BOS first', () => {
    const date = new Date('2031-03-04T12:00:00Z');
    for (const name of usesBos) {
      const { bos, eos } = TEMPLATE_TOKENS[name];
      const template = withFixedDate(readTemplate(name), date);
      // Gemma 2 takes no system message; the others take Keel's whole standard conversation.
      const context = standardContext({ bos_token: bos, eos_token: eos });
      if (name === 'gemma-2') context.messages = [{ role: 'user', content: 'Hi.' }, { role: 'assistant', content: 'Hello.' }, { role: 'user', content: 'Thanks.' }];
      expect(renderFailure(template, context), name).toBeUndefined();
      expect(new Template(template).render(context).trimStart().startsWith(bos), name).toBe(true);
    }
  });

  it('renders Functionary v3.2 without bos_token as llama.cpp does (`bos_token + …` reads "", line 265)', () => {
    const template = readTemplate('functionary-v3.2');
    const context = standardContext({ eos_token: '<|eot_id|>' });
    expect(renderFailure(template, context)).toBeUndefined();
    expect(new Template(template).render(context).startsWith('<|start_header_id|>system')).toBe(true);
  });

  it('names a missing variable and its line where it fails in both engines (called on)', () => {
    const failure = renderFailure("{{ 'a' }}\n{{ bos_token.strip() + 'b' }}", standardContext({}));
    expect(failure?.message).toMatch(/Cannot call something that is not a function/);
    expect(failure).toMatchObject({ variable: 'bos_token', line: { number: 2, text: "{{ bos_token.strip() + 'b' }}" } });
  });

  it('names the first of two missing variables, and none where nothing is missing', () => {
    const template = "{{ bos_token }}\n{% for m in messages %}{{ m.content + sep_token.strip() }}\n{{ pad_token.strip() + 'x' }}{% endfor %}";
    expect(renderFailure(template, standardContext({}))).toMatchObject({ variable: 'sep_token', line: { number: 2 } });
    expect(renderFailure(template, standardContext({ sep_token: '<sep>' }))).toMatchObject({ variable: 'pad_token', line: { number: 3 } });
    expect(renderFailure(template, standardContext({ sep_token: '<sep>', pad_token: '<pad>' }))).toBeUndefined();
  });
});
