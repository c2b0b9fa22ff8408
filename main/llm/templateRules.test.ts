import { LlamaText, SpecialTokensText } from 'node-llama-cpp';
import { describe, expect, it } from 'vitest';
import { openedThought, templateGenerationPrompt, withPromptEnd } from './generationPrompt.js';
import { triggerStart } from './request.js';
import { templateToolsWrapper } from './templateTools.js';
import { readTemplate } from './testModel/templates.js';
import { fixedDateSettings, rendersToolDefinitions, templateLine } from './wrapper.js';

// The general rules of wrapper.ts and generationPrompt.ts on the real shared templates, without a model.
describe('template rules', () => {
  it('gives every node-llama-cpp wrapper the fixed date (Llama 3.2 lightweight too)', () => {
    const date = new Date('2031-03-04T12:00:00Z');
    const settings = fixedDateSettings(date);
    for (const name of ['llama3.2-lightweight', 'llama3.1', 'harmony', 'muse']) expect(settings[name]).toEqual({ todayDate: date });
  });

  it("takes the template's own generation prompt: Command R ends at <|CHATBOT_TOKEN|>, QwQ opens <think>", () => {
    const command = templateGenerationPrompt(readTemplate('command-r7b'), {}, '<BOS_TOKEN>', '<|END_OF_TURN_TOKEN|>')!;
    expect(command.endsWith('<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>')).toBe(true);
    const rendered = LlamaText([new SpecialTokensText(`x${command}<|START_RESPONSE|>`)]);
    expect(withPromptEnd(rendered, command).toString()).toBe(`x${command}`);
    const qwq = templateGenerationPrompt(readTemplate('qwq-32b'), {}, '', '<|im_end|>')!;
    expect(qwq.endsWith('<|im_start|>assistant\n<think>\n')).toBe(true);
    expect(withPromptEnd(LlamaText(['U<|im_end|>\n<|im_start|>assistant\n']), qwq).toString()).toBe('U<|im_end|>\n<|im_start|>assistant\n<think>\n');
    expect(openedThought(qwq)).toEqual({ prefix: '<think>\n', suffix: '</think>' });
    const nemotron = templateGenerationPrompt(readTemplate('nemotron-nano-v2'), {}, '', '<SPECIAL_12>')!;
    expect(openedThought(nemotron)?.suffix).toBe('</think>');
  });

  it('sees that DeepSeek V3.1 renders no tool definitions, and that Qwen3 does', () => {
    expect(rendersToolDefinitions(readTemplate('deepseek-v3.1'))).toBe(false);
    expect(rendersToolDefinitions(readTemplate('qwen3'))).toBe(true);
  });

  it("reads calls as Hermes 3, Command R7B and Nemotron's templates render them", () => {
    const prefix = (name: Parameters<typeof readTemplate>[0], ends: string[], parameters = {}) =>
      LlamaText(templateToolsWrapper(readTemplate(name), parameters, ends)!.settings.functions.call.prefix).toString();
    expect(prefix('hermes-3', ['<|im_end|>'], { tools: [] })).toBe('<tool_call>\n{"name": "');
    expect(prefix('command-r7b', ['<|END_OF_TURN_TOKEN|>'])).toContain('<|START_ACTION|>');
    expect(prefix('nemotron-nano-v2', ['<SPECIAL_12>'])).toBe('<TOOLCALL>[{"name": "');
    expect(templateToolsWrapper(readTemplate('command-r7b'), {}, ['<|END_OF_TURN_TOKEN|>'])!.answer).toMatchObject({ prefix: '<|START_RESPONSE|>', suffix: '<|END_RESPONSE|>' });
  });

  it('names the line an unpacking error comes from (Functionary v3.2, line 90)', () => {
    const line = templateLine(readTemplate('functionary-v3.2'), 'Cannot unpack non-iterable type: TupleValue');
    expect(line?.number).toBe(90);
  });

  it('checks stop triggers before the end token: no <|END_RESPONSE|> left in an answer', () => {
    const text = 'Done.<|END_RESPONSE|><|END_OF_TURN_TOKEN|>';
    const trigger = LlamaText('<|END_RESPONSE|><|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>');
    expect(triggerStart(text, text.length - '<|END_OF_TURN_TOKEN|>'.length, [trigger])).toBe('Done.'.length);
    // A trigger that is only the end token itself takes nothing from the text.
    expect(triggerStart('Done.<|im_end|>', 'Done.'.length, [LlamaText('<|im_end|>')])).toBeUndefined();
  });
});
