// Test models of the architectures people run now (issue 31): each a tiny GGUF of its family's
// architecture (families.ts) carrying the family's real chat template, copied from llama.cpp's own
// collection in the bundled source (models/templates, MIT; the files in ./templates are unchanged).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestModelArchitecture, TestModelOptions } from './makeTestModel.js';

const TEMPLATES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'templates');

export interface ArchitectureModel extends TestModelOptions {
  architecture: TestModelArchitecture;
  /** The template file in ./templates. */
  templateFile: string;
}

const QWEN_TOKENS = ['<|im_start|>', '<|im_end|>', '<tool_call>', '</tool_call>', '<tool_response>', '</tool_response>', '<think>', '</think>'];

const SPECS: readonly Omit<ArchitectureModel, 'template'>[] = [
  {
    // Hybrid: Gated DeltaNet beside attention. The template drops earlier replies' reasoning.
    architecture: 'qwen35', templateFile: 'Qwen3.5-4B.jinja', name: 'Qwen3.5 4B', sizeLabel: '4B',
    specialTokens: [...QWEN_TOKENS, '<|vision_start|>', '<|vision_end|>', '<|image_pad|>', '<|video_pad|>'],
    bos: '<|endoftext|>', eos: '<|im_end|>',
  },
  {
    // Sliding window on alternate layers. Harmony drops the analysis channel of finished turns.
    architecture: 'gpt-oss', templateFile: 'openai-gpt-oss-120b.jinja', name: 'Gpt Oss 20b', sizeLabel: '20B',
    specialTokens: ['<|start|>', '<|end|>', '<|message|>', '<|channel|>', '<|call|>', '<|return|>', '<|constrain|>'],
    bos: '<|startoftext|>', eos: '<|return|>',
  },
  {
    // Sliding window on most layers.
    architecture: 'gemma4', templateFile: 'google-gemma-4-31B-it.jinja', name: 'Gemma 4 31B It', sizeLabel: '31B',
    specialTokens: ['<|turn>', '<|channel>', '<channel|>', '<|tool_call>', '<tool_call|>', '<|tool_response>', '<tool_response|>',
      '<|tool>', '<tool|>', '<|"|>', '<|think|>', '<|image|>', '<|audio|>', '<|video|>'],
    bos: '<bos>', eos: '<turn|>',
  },
  {
    // Hybrid: short convolutions beside attention. The template drops earlier replies' reasoning.
    architecture: 'lfm2', templateFile: 'LFM2.5-Instruct.jinja', name: 'LFM2.5 1.2B Instruct', sizeLabel: '1.2B',
    specialTokens: ['<|im_start|>', '<|im_end|>', '<think>', '</think>', '<|tool_call_start|>', '<|tool_call_end|>'],
    bos: '<|startoftext|>', eos: '<|im_end|>',
  },
];

/** One model per architecture family, with its template text read in. */
export const ARCHITECTURE_MODELS: readonly ArchitectureModel[] = SPECS.map((spec) => ({
  ...spec,
  layers: 4,
  template: fs.readFileSync(path.join(TEMPLATES, spec.templateFile), 'utf8'),
}));

/** The model of one architecture. */
export function architectureModel(architecture: TestModelArchitecture): ArchitectureModel {
  const found = ARCHITECTURE_MODELS.find((m) => m.architecture === architecture);
  if (!found) throw new Error(`no test model of architecture ${architecture}; there are ${ARCHITECTURE_MODELS.map((m) => m.architecture).join(', ')}`);
  return found;
}
