import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ChatModelFunctions } from 'node-llama-cpp';
import { templateToolsWrapper } from './templateTools.js';
import { callSyntax, formatCall, parseCalls } from './toolCalls.js';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'testModel/templates');
const syntaxOf = (name: string, ends: string[] = []) => {
  const wrapper = templateToolsWrapper(fs.readFileSync(path.join(dir, `${name}.jinja`), 'utf8'), {}, ends);
  if (!wrapper) throw new Error(`${name}: no call syntax learnt`);
  return callSyntax(wrapper);
};

const functions: ChatModelFunctions = {
  read: { description: 'r', params: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'number' } } } },
  edit: { description: 'e', params: { type: 'object', properties: { path: { type: 'string' }, new_string: { type: 'string' }, replace_all: { type: 'boolean' } } } },
};

describe('calls whose arguments are keys and values, learnt from the template', () => {
  it('reads GLM-4.6 calls as a GLM model writes them, each value typed by the tool\'s schema', () => {
    const syntax = syntaxOf('GLM-4.6');
    expect(syntax.tagged).toMatchObject({ strings: 'bare', between: '' });
    const text = 'Let me look.\n<tool_call>edit\n<arg_key>path</arg_key>\n<arg_value>a.txt</arg_value>\n'
      + '<arg_key>new_string</arg_key>\n<arg_value>7</arg_value>\n<arg_key>replace_all</arg_key>\n<arg_value>true</arg_value>\n</tool_call>'
      + '\n<tool_call>read\n<arg_key>path</arg_key>\n<arg_value>x < y && "q"\nz</arg_value>\n<arg_key>limit</arg_key>\n<arg_value>5</arg_value>\n</tool_call>';
    const read = parseCalls(text, syntax, functions);
    expect(read.complete).toBe(true);
    expect(read.before).toBe('Let me look.');
    // "7" for a string parameter stays text; true and 5 for a boolean and a number are JSON.
    expect(read.calls.map((c) => [c.name, c.args])).toEqual([
      ['edit', { path: 'a.txt', new_string: '7', replace_all: true }],
      ['read', { path: 'x < y && "q"\nz', limit: 5 }],
    ]);
    expect(read.calls[1].raw).toBe(text.slice(text.lastIndexOf('<tool_call>')));
  });

  it('reads a call as a Qwen3.5 model writes it (node-llama-cpp\'s wrapper expected one `params` parameter holding JSON)', () => {
    const syntax = syntaxOf('Qwen3.5-4B');
    const text = '<tool_call>\n<function=read>\n<parameter=path>\nsrc/a.ts\n</parameter>\n<parameter=limit>\n20\n</parameter>\n</function>\n</tool_call>';
    expect(parseCalls(text, syntax, functions).calls.map((c) => [c.name, c.args])).toEqual([['read', { path: 'src/a.ts', limit: 20 }]]);
  });

  it('reads LFM2.5 calls that share one block, quoted strings holding the separators', () => {
    const syntax = syntaxOf('LFM2.5-8B-A1B', ['<|im_end|>']);
    expect(syntax.tagged).toMatchObject({ strings: 'python', between: ', ', blockEnd: ']<|tool_call_end|>' });
    const text = "<|tool_call_start|>[read(path='a, b).txt', limit=5), edit(path='c', replace_all=True), read()]<|tool_call_end|>";
    const read = parseCalls(text, syntax, functions);
    expect(read.complete).toBe(true);
    expect(read.calls.map((c) => [c.name, c.args])).toEqual([
      ['read', { path: 'a, b).txt', limit: 5 }], ['edit', { path: 'c', replace_all: true }], ['read', {}],
    ]);
  });

  it('holds a call that is still being written as incomplete', () => {
    const syntax = syntaxOf('LFM2.5-8B-A1B', ['<|im_end|>']);
    for (const partial of ["<|tool_call_start|>[read(path='a", "<|tool_call_start|>[read(path='a')", "<|tool_call_start|>[read(path='a')]"]) {
      expect(parseCalls(partial, syntax, functions).complete, partial).toBe(false);
    }
    const glm = syntaxOf('GLM-4.6');
    expect(parseCalls('<tool_call>read\n<arg_key>path</arg_key>\n<arg_value>a.t', glm).complete).toBe(false);
  });

  it.each([
    ['GLM-4.6', []], ['GLM-4.7-Flash', []], ['Qwen3-Coder', []], ['ByteDance-Seed-OSS', []],
    ['tencent-Hy3', ['<｜hy_eos:opensource｜>']], ['LFM2.5-8B-A1B', ['<|im_end|>']],
  ])('writes and reads back %s calls (strings with quotes and newlines, numbers, lists)', (name, ends) => {
    const syntax = syntaxOf(name, ends);
    const args = { path: 'it\'s "a"\nb.txt', limit: 3, items: [{ text: 'x', status: 'todo' }] };
    const read = parseCalls(`Words.${syntax.separator}${formatCall(syntax, 'read', args)}`, syntax, functions);
    expect(read.calls.map((c) => [c.name, c.args])).toEqual([['read', args]]);
    expect(read.before).toBe('Words.');
  });
});
