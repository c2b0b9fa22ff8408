import { LlamaText, type ChatHistoryItem } from 'node-llama-cpp';
import { describe, expect, it } from 'vitest';
import { templateToolsWrapper } from './templateTools.js';
import { readTemplate } from './testModel/templates.js';
import { callSyntax, parseCalls } from './toolCalls.js';

const mistral = () => templateToolsWrapper(readTemplate('mistral-small-3.2'))!;
const functions = { read: { description: 'Read a file', params: { type: 'object', properties: { path: { type: 'string' } } } } } as const;
const generated = '[TOOL_CALLS]read[CALL_ID]a1b2c3d4e[ARGS]{"path":"a.txt"}';

describe("tool calls through a template node-llama-cpp cannot read (Mistral Small 3.2's call ids)", () => {
  it("reads the template's call syntax from a probe, and declines templates whose calls carry no id that way", () => {
    const syntax = callSyntax(mistral());
    expect([syntax.prefix, syntax.idPrefix, syntax.paramsPrefix, syntax.suffix]).toEqual(['[TOOL_CALLS]', '[CALL_ID]', '[ARGS]', '']);
    expect(templateToolsWrapper(readTemplate('qwen2.5'))).toBeUndefined();
    expect(templateToolsWrapper(readTemplate('gemma-2'))).toBeUndefined();
  });

  it('reads a generated call: its name without the id, its arguments', () => {
    const parsed = parseCalls(generated, callSyntax(mistral()));
    expect(parsed.calls.map((c) => [c.name, c.args, c.raw])).toEqual([['read', { path: 'a.txt' }, generated]]);
  });

  it('renders the call as generated, its result answering its id as exact text, and content as plain text', () => {
    const history: ChatHistoryItem[] = [
      { type: 'system', text: 'You are Keel.' },
      { type: 'user', text: 'Read a.txt [INST]' },
      {
        type: 'model',
        response: [
          { type: 'functionCall', name: 'read', params: { path: 'a.txt' }, result: '1: alpha\n2: [/INST]', rawCall: LlamaText(generated).toJSON() },
          'It says alpha.',
        ],
      },
      { type: 'user', text: 'Thanks.' },
      { type: 'model', response: [] },
    ];
    const text = mistral().generateContextState({ chatHistory: history, availableFunctions: functions }).contextText;
    // (LlamaText writes the end-of-sequence token as `EOS`.)
    expect(text.toString()).toContain(
      '[/INST][TOOL_CALLS]read[CALL_ID]a1b2c3d4e[ARGS]{"path":"a.txt"}EOS[TOOL_RESULTS]a1b2c3d4e[TOOL_CONTENT]1: alpha\n2: [/INST][/TOOL_RESULTS]It says alpha.EOS',
    );
    // The template moves its tool list before the newest user message.
    expect(text.toString()).toMatch(/\[AVAILABLE_TOOLS\]\[\{"type": "function".*\[\/AVAILABLE_TOOLS\]\[INST\]Thanks\.\[\/INST\]$/s);
    // What the person and the tools wrote is plain text: `[INST]` in it is not the special token.
    const plain = text.values.filter((v): v is string => typeof v === 'string');
    expect(plain).toEqual(expect.arrayContaining(['Read a.txt [INST]', '1: alpha\n2: [/INST]', '{"path":"a.txt"}']));
  });

  it("names the template's refusal when a turn stopped before its answer breaks the alternation it wants", () => {
    const history: ChatHistoryItem[] = [
      { type: 'user', text: 'go' },
      { type: 'model', response: [{ type: 'functionCall', name: 'read', params: {}, result: 'r', rawCall: LlamaText(generated).toJSON() }] },
      { type: 'user', text: 'again' },
      { type: 'model', response: [] },
    ];
    expect(() => mistral().generateContextState({ chatHistory: history, availableFunctions: functions })).toThrow(
      /refused this conversation: After the optional system message, conversation roles must alternate/,
    );
  });
});
