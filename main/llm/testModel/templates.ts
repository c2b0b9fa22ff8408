// The special tokens, BOS and EOS that each chat template in shared/templates uses, so that a test
// model made with that template tokenizes its markers as single tokens. The Jinja files themselves
// live beside the checkout (../shared/templates from the repository root), here and in CI.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Template } from '@huggingface/jinja';
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
  /** The real model's general.name and size label: node-llama-cpp picks its wrapper by them. */
  name: string;
  sizeLabel: string;
}

const LLAMA3_TOKENS = ['<|begin_of_text|>', '<|start_header_id|>', '<|end_header_id|>', '<|eot_id|>', '<|eom_id|>', '<|python_tag|>'];
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
    name: 'Qwen3 0.6B',
    sizeLabel: '0.6B',
    specialTokens: ['<|im_start|>', '<|im_end|>', ...QWEN_TOOL_TOKENS, '<think>', '</think>'],
    bos: '<|endoftext|>',
    eos: '<|im_end|>',
    architecture: 'qwen3',
  },
  'qwen2.5': {
    name: 'Qwen2.5 7B Instruct',
    sizeLabel: '7B',
    specialTokens: ['<|im_start|>', '<|im_end|>', ...QWEN_TOOL_TOKENS],
    bos: '<|endoftext|>',
    eos: '<|im_end|>',
    architecture: 'qwen2',
  },
  'llama-3.3': {
    name: 'Llama 3.3 70B Instruct',
    sizeLabel: '70B',
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
    name: 'Mistral Small 3.2 24B Instruct 2506',
    sizeLabel: '24B',
    specialTokens: [...MISTRAL_TOKENS, '[CALL_ID]', '[TOOL_CONTENT]'],
    bos: '<s>',
    eos: '</s>',
  },
  'devstral-small': {
    name: 'Devstral Small 2507',
    sizeLabel: '24B',
    specialTokens: MISTRAL_TOKENS,
    bos: '<s>',
    eos: '</s>',
  },
  'gpt-oss': {
    name: 'Gpt Oss 120b',
    sizeLabel: '120B',
    specialTokens: ['<|start|>', '<|end|>', '<|message|>', '<|channel|>', '<|call|>', '<|return|>', '<|constrain|>'],
    bos: '<|startoftext|>',
    eos: '<|return|>',
  },
  'gemma-2': {
    name: 'Gemma 2 2b It',
    sizeLabel: '2B',
    specialTokens: ['<start_of_turn>', '<end_of_turn>'],
    bos: '<bos>',
    eos: '<eos>',
  },
  'granite-3.3': {
    name: 'Granite 3.3 2b Instruct',
    sizeLabel: '2B',
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
  'llama-3.2': {
    name: 'Llama 3.2 3B Instruct',
    sizeLabel: '3B',
    specialTokens: LLAMA3_TOKENS,
    bos: '<|begin_of_text|>',
    eos: '<|eot_id|>',
  },
  'hermes-3': {
    name: 'Hermes 3 Llama 3.1 8B',
    sizeLabel: '8B',
    specialTokens: ['<|im_start|>', '<|im_end|>', ...QWEN_TOOL_TOKENS, '<tools>', '</tools>'],
    bos: '<|begin_of_text|>',
    eos: '<|im_end|>',
  },
  'phi-3.5': {
    name: 'Phi 3.5 Mini Instruct',
    sizeLabel: '3.8B',
    specialTokens: ['<|system|>', '<|user|>', '<|assistant|>', '<|end|>'],
    bos: '<s>',
    eos: '<|endoftext|>',
  },
  'qwq-32b': {
    name: 'QwQ 32B',
    sizeLabel: '32B',
    specialTokens: ['<|im_start|>', '<|im_end|>', ...QWEN_TOOL_TOKENS, '<think>', '</think>'],
    bos: '<|endoftext|>',
    eos: '<|im_end|>',
    architecture: 'qwen2',
  },
  'deepseek-v3.1': {
    name: 'DeepSeek V3.1',
    sizeLabel: '671B',
    specialTokens: [
      '<｜User｜>', '<｜Assistant｜>', '<think>', '</think>', '<｜tool▁calls▁begin｜>', '<｜tool▁calls▁end｜>', '<｜tool▁call▁begin｜>',
      '<｜tool▁call▁end｜>', '<｜tool▁sep｜>', '<｜tool▁output▁begin｜>', '<｜tool▁output▁end｜>',
    ],
    bos: '<｜begin▁of▁sentence｜>',
    eos: '<｜end▁of▁sentence｜>',
  },
  'command-r7b': {
    name: 'C4AI Command R7B 12 2024',
    sizeLabel: '7B',
    specialTokens: [
      '<|START_OF_TURN_TOKEN|>', '<|END_OF_TURN_TOKEN|>', '<|SYSTEM_TOKEN|>', '<|USER_TOKEN|>', '<|CHATBOT_TOKEN|>',
      '<|START_RESPONSE|>', '<|END_RESPONSE|>', '<|START_THINKING|>', '<|END_THINKING|>', '<|START_ACTION|>', '<|END_ACTION|>',
      '<|START_TOOL_RESULT|>', '<|END_TOOL_RESULT|>',
    ],
    bos: '<BOS_TOKEN>',
    eos: '<|END_OF_TURN_TOKEN|>',
  },
  'nemotron-nano-v2': {
    name: 'NVIDIA Nemotron Nano 9B v2',
    sizeLabel: '9B',
    specialTokens: [
      '<SPECIAL_10>', '<SPECIAL_11>', '<think>', '</think>', '<TOOLCALL>', '</TOOLCALL>', '<AVAILABLE_TOOLS>', '</AVAILABLE_TOOLS>',
      '<TOOL_RESPONSE>', '</TOOL_RESPONSE>',
    ],
    bos: '<s>',
    eos: '<SPECIAL_12>',
  },
  'functionary-v3.2': {
    name: 'Functionary Medium v3.2',
    sizeLabel: '70B',
    specialTokens: LLAMA3_TOKENS,
    bos: '<|begin_of_text|>',
    eos: '<|eot_id|>',
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
    name: tokens.name,
    sizeLabel: tokens.sizeLabel,
    ...overrides,
  };
}

/**
 * The tokens for a template given as text: a shared template's own table where the text is one of
 * them, else what the text and its rendering show — every tag-like special token it writes (`<|…|>`, `<｜…｜>`,
 * `[UPPER]`, `<SPECIAL_n>`, `<think>`), BOS when it writes `bos_token`, EOS the first end-of-turn
 * token it uses among the usual ones, or else its own (a token it builds, as Hunyuan's `'<｜hy_eos{}｜>'.format(…)`, as rendered).
 */
export function templateTokensFor(template: string, dir = TEMPLATES_DIR): TemplateTokens {
  for (const name of TEMPLATE_NAMES) {
    try {
      if (readTemplate(name, dir) === template) return TEMPLATE_TOKENS[name];
    } catch {
      // A shared template missing here: read the text instead.
    }
  }
  const tokens = /<\|[A-Za-z0-9_]+\|>|<｜[^｜<>{}]+｜>|\[\/?[A-Z_]{2,}\]|<\/?(?:SPECIAL_\d+|think|tool_call|tool_response|tools)>/g;
  const found = new Set(`${template}\n${renderedSample(template)}`.match(tokens) ?? []);
  const ends = ['<|im_end|>', '<|eot_id|>', '<|END_OF_TURN_TOKEN|>', '<end_of_turn>', '<|end|>', '<｜end▁of▁sentence｜>', '<|end_of_text|>', '<|return|>', '</s>'];
  // A template's own end-of-sequence token where it writes none of the usual ones (Hunyuan's `<｜hy_eos:opensource｜>`).
  const eos = ends.find((e) => found.has(e) || template.includes(e)) ?? [...found].find((t) => /eos|eot|end_of_turn/i.test(t)) ?? '</s>';
  const bos = ['<|begin_of_text|>', '<s>', '<bos>'].find((b) => template.includes(b)) ?? '<s>';
  return { name: 'Keel template check', sizeLabel: '1B', specialTokens: [...found].filter((t) => t !== eos && t !== bos), bos, eos };
}

/** The template's rendering of a short conversation with a call, or '' where it does not render one. */
function renderedSample(template: string): string {
  const call = { id: 'c1', type: 'function', function: { name: 'read', arguments: { path: 'a' } } };
  try {
    return new Template(template).render({
      messages: [
        { role: 'system', content: 'S' }, { role: 'user', content: 'U' }, { role: 'assistant', content: '', tool_calls: [call] },
        { role: 'tool', tool_call_id: 'c1', content: 'R' }, { role: 'assistant', content: 'A' },
      ],
      tools: [{ type: 'function', function: { name: 'read', description: 'd', parameters: { type: 'object', properties: { path: { type: 'string' } } } } }],
      bos_token: '', eos_token: '', add_generation_prompt: true,
    });
  } catch {
    return '';
  }
}
