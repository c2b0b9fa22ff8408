import { describe, expect, it } from 'vitest';
import { parseCalls, plainFormat, type CallSyntax } from './toolCalls.js';

const syntax = (prefix: string, paramsPrefix: string, suffix: string, separator = ''): CallSyntax =>
  ({ prefix, paramsPrefix, suffix, separator, idPrefix: '', settings: { optionalPrefixSpace: false, prefix, paramsPrefix, suffix } });

describe('reading tool calls from generated text', () => {
  const qwen = syntax('<tool_call>\n{"name": "', '", "arguments": ', '}\n</tool_call>', '\n');

  it('finds calls, their arguments, their exact text and the words before them', () => {
    const text = 'Let me look.\n<tool_call>\n{"name": "read", "arguments": {"path": "a.ts"}}\n</tool_call>';
    const parsed = parseCalls(text, qwen);
    expect(parsed.before).toBe('Let me look.');
    expect(parsed.calls).toEqual([{ name: 'read', args: { path: 'a.ts' }, problem: undefined, raw: text.slice(13), start: 13, end: text.length }]);
  });

  it('is not fooled by a suffix character inside a JSON string', () => {
    const generic = syntax('||call: ', '(', ')');
    const text = '||call: edit({"old_string": "f(x)", "new_string": "g(x)"})';
    expect(parseCalls(text, generic).calls[0].args).toEqual({ old_string: 'f(x)', new_string: 'g(x)' });
    expect(parseCalls('||call: edit({"old_string": "f(x)', generic).calls).toEqual([]);
  });

  it('ends a call without a suffix with its JSON, and reports malformed arguments', () => {
    const devstral = syntax('[TOOL_CALLS]', '[ARGS]', '');
    expect(parseCalls('[TOOL_CALLS]list[ARGS]{"path": "src"}', devstral).calls[0].args).toEqual({ path: 'src' });
    expect(parseCalls('[TOOL_CALLS]list[ARGS]{"path": "sr', devstral).complete).toBe(false);
    const bad = parseCalls('<tool_call>\n{"name": "read", "arguments": {path: 1}}\n</tool_call>', qwen).calls[0];
    expect(bad.problem).toMatch(/^the arguments of read are not valid JSON/);
  });

  it('settles the words once a call has begun: later text never changes them', () => {
    const format = plainFormat(qwen);
    const reply = 'Let me look.\n<tool_call>\n{"name": "write", "arguments": {"content": "a <tool_call> b"}}\n</tool_call>';
    const begun = reply.indexOf(qwen.prefix) + qwen.prefix.length;
    for (let end = 1; end <= reply.length; end++) {
      const text = reply.slice(0, end);
      expect(format.wordsSettled(text)).toBe(end >= begun);
      // Settled words are the final words, whatever follows.
      if (end >= begun) expect(format.visible(text, false)).toBe(format.visible(reply, true));
    }
  });
});
