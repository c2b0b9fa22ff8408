// The special tokens, BOS and EOS that each chat template in shared/templates uses, so that a test
// model made with that template tokenizes its markers as single tokens. The Jinja files themselves
// live beside the checkout (../shared/templates from the repository root), here and in CI.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestModelArchitecture, TestModelOptions } from './makeTestModel.js';

export interface TemplateTokens {
  /** Special tokens the template's text uses (and a few its model family keeps beside them). */
  specialTokens: readonly string[];
  bos: string;
  eos: string;
  /**
   * Architecture closest to the real model's that makeTestModel can write (default 'llama'). Qwen
   * templates get a Qwen architecture: node-llama-cpp considers its QwenChatWrapper only for those,
   * so with 'llama' a Qwen template resolves to JinjaTemplateChatWrapper instead.
   */
  architecture?: TestModelArchitecture;
}

const QWEN_TOOL_TOKENS = ['<tool_call>', '</tool_call>', '<tool_response>', '</tool_response>'];
const MISTRAL_TOKENS = [
  '[INST]',
  '[/INST]',
  '[TOOL_CALLS]',
  '[AVAILABLE_TOOLS]',
  '[/AVAILABLE_TOOLS]',
  '[TOOL_RESULTS]',
  '[/TOOL_RESULTS]',
  '[SYSTEM_PROMPT]',
  '[/SYSTEM_PROMPT]',
  '[ARGS]',
  '[IMG]',
];

/** Per template file name (without .jinja): its tokens. */
export const TEMPLATE_TOKENS = {
  qwen3: {
    specialTokens: ['<|im_start|>', '<|im_end|>', ...QWEN_TOOL_TOKENS, '<think>', '</think>'],
    bos: '<|endoftext|>',
    eos: '<|im_end|>',
    architecture: 'qwen3',
  },
  'qwen2.5': {
    specialTokens: ['<|im_start|>', '<|im_end|>', ...QWEN_TOOL_TOKENS],
    bos: '<|endoftext|>',
    eos: '<|im_end|>',
    architecture: 'qwen2',
  },
  'llama-3.3': {
    specialTokens: [
      '<|begin_of_text|>',
      '<|start_header_id|>',
      '<|end_header_id|>',
      '<|eot_id|>',
      '<|eom_id|>',
      '<|python_tag|>',
    ],
    bos: '<|begin_of_text|>',
    eos: '<|eot_id|>',
  },
  'mistral-small-3.2': {
    specialTokens: [...MISTRAL_TOKENS, '[CALL_ID]', '[TOOL_CONTENT]'],
    bos: '<s>',
    eos: '</s>',
  },
  'devstral-small': {
    specialTokens: MISTRAL_TOKENS,
    bos: '<s>',
    eos: '</s>',
  },
  'gpt-oss': {
    specialTokens: ['<|start|>', '<|end|>', '<|message|>', '<|channel|>', '<|call|>', '<|return|>', '<|constrain|>'],
    bos: '<|startoftext|>',
    eos: '<|return|>',
  },
  'gemma-2': {
    specialTokens: ['<start_of_turn>', '<end_of_turn>'],
    bos: '<bos>',
    eos: '<eos>',
  },
  'granite-3.3': {
    specialTokens: [
      '<|start_of_role|>',
      '<|end_of_role|>',
      '<|end_of_text|>',
      '<|tool_call|>',
      '<|start_of_cite|>',
      '<|end_of_cite|>',
      '<think>',
      '</think>',
      '<response>',
      '</response>',
    ],
    bos: '<|end_of_text|>',
    eos: '<|end_of_text|>',
  },
} as const satisfies Record<string, TemplateTokens>;

export type TemplateName = keyof typeof TEMPLATE_TOKENS;

export const TEMPLATE_NAMES = Object.keys(TEMPLATE_TOKENS) as TemplateName[];

/** The repository root (three folders above this file). */
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Where the shared Jinja templates are: `../shared/templates` from the repository root. */
export const TEMPLATES_DIR = path.resolve(REPO_ROOT, '../shared/templates');

/** Reads one template's Jinja text. */
export function readTemplate(name: TemplateName, dir = TEMPLATES_DIR): string {
  return fs.readFileSync(path.join(dir, `${name}.jinja`), 'utf8');
}

/** makeTestModel options for a model that carries this template and its tokens. */
export function templateModelOptions(
  name: TemplateName,
  overrides: TestModelOptions = {},
  dir = TEMPLATES_DIR,
): TestModelOptions {
  const tokens: TemplateTokens = TEMPLATE_TOKENS[name];
  if (!tokens) throw new Error(`unknown template: ${name}`);
  return {
    template: readTemplate(name, dir),
    specialTokens: tokens.specialTokens,
    bos: tokens.bos,
    eos: tokens.eos,
    architecture: tokens.architecture ?? 'llama',
    ...overrides,
  };
}
