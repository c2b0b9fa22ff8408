import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Template } from '@huggingface/jinja';
import type { ChatModelFunctions } from 'node-llama-cpp';
import { describe, expect, it } from 'vitest';
import { MuseAtemWrapper, museFormat } from './muse.js';

/** llama.cpp's copy of the Muse Glimmer template (models/templates/muse-glimmer.jinja): the oracle. */
const template = new Template(fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'testModel/templates/muse-glimmer.jinja'), 'utf8'));

const functions = {
  edit: {
    description: 'Edits.',
    params: { type: 'object', properties: { path: { type: 'string' }, count: { type: 'integer' }, all: { type: 'boolean' }, lines: { type: 'array' }, note: { type: 'string' } } },
  },
} as unknown as ChatModelFunctions;
const args = { path: 'a.txt', count: 2, all: true, lines: ['x', 'y'], note: '7' };

/** The model turn the template renders for reasoning and a call, as the model writes it: after the generation prompt, to the call's end. */
function templateTurn(): string {
  const rendered = template.render({
    messages: [
      { role: 'user', content: 'U' },
      { role: 'assistant', reasoning_content: 'Think.', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'edit', arguments: args } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'R' },
    ],
    tools: [], bos_token: '', eos_token: '', add_generation_prompt: false,
  });
  const turn = rendered.slice(rendered.indexOf('<|start|>assistant') + '<|start|>assistant'.length);
  return turn.slice(0, turn.indexOf('<|eot|>'));
}

describe("Muse Glimmer's recipient messages", () => {
  it('reads a call as the template writes it: reasoning apart, one parameter per argument, typed by the schema', () => {
    const text = templateTurn();
    const read = museFormat.read(text, functions);
    expect(read.complete).toBe(true);
    expect(read.words).toBe('');
    // A string parameter keeps "7" as text; the others are JSON.
    expect(read.calls.map(({ name, args: a, problem }) => ({ name, args: a, problem }))).toEqual([{ name: 'edit', args, problem: undefined }]);
    const [call] = read.calls;
    expect(text.slice(call.start, call.end)).toBe(call.raw);
    expect(call.raw.startsWith(' to=edit<|message|><atem:function_calls>')).toBe(true);
    // The reasoning before it goes back as a thought, rendered by the wrapper to the same bytes.
    expect(read.raw).toBe(' to=self<|message|>Think.<|eom|>');
    expect(museFormat.items({ text: read.words, raw: read.raw })).toEqual([{ type: 'segment', segmentType: 'thought', text: 'Think.', ended: true }]);
  });

  it('writes a call as the template does, so scripted and re-rendered calls are what a model writes', () => {
    const written = new MuseAtemWrapper().generateFunctionCall('edit', args).toString();
    expect(`${written}<|eot|>`).toBe(templateTurn().slice(templateTurn().indexOf(' to=edit')) + '<|eot|>');
  });

  it('shows the answer, never the reasoning, and reads words before a call', () => {
    const answer = ' to=self<|message|>Hmm.<|eom|><|start|>assistant to=user<|message|>It says alpha.';
    expect(museFormat.read(answer, functions)).toMatchObject({ words: 'It says alpha.', calls: [], complete: true });
    expect(museFormat.visible(' to=self<|message|>Hmm', false)).toBe('');
    expect(museFormat.visible(answer, false)).toBe('It says alpha.');
    const before = ' to=user<|message|>Let me look.<|eom|><|start|>assistant to=edit<|message|><atem:function_calls>\n<atem:invoke name="edit">\n</atem:invoke>\n</atem:function_calls>';
    const read = museFormat.read(before, functions);
    expect(read).toMatchObject({ words: 'Let me look.', raw: ' to=user<|message|>Let me look.<|eom|>', complete: true });
    expect(read.calls.map((c) => [c.name, c.args])).toEqual([['edit', {}]]);
    expect(museFormat.wordsSettled(before)).toBe(true);
    expect(museFormat.wordsSettled(answer)).toBe(false);
    // While a header is written, nothing is settled: ` to=us` may become ` to=user`.
    expect(museFormat.wordsSettled(' to=self<|message|>Hmm.<|eom|><|start|>assistant to=us')).toBe(false);
    expect(museFormat.visible(' to=user<|message|>Hel', false)).toBe('Hel');
  });

  it('waits for a call being written, and names one that is not an ATEM block', () => {
    const text = templateTurn();
    const partial = text.slice(0, text.indexOf('<atem:parameter name="all">'));
    expect(museFormat.read(partial, functions)).toMatchObject({ calls: [], complete: false });
    expect(museFormat.read(' to=edit<|message|><atem:func', functions)).toMatchObject({ calls: [], complete: false });
    const wrong = museFormat.read(' to=edit<|message|>{"path": "a.txt"}<|eom|>', functions);
    expect(wrong.complete).toBe(true);
    expect(wrong.calls[0]).toMatchObject({ name: 'edit', args: undefined });
    expect(wrong.calls[0].problem).toContain('not an ATEM block');
  });
});
