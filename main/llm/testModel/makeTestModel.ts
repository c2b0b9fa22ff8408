// Deterministic tiny GGUF models (arch `llama`, SPM tokenizer, random weights) for tests and
// benchmarks that run the real node-llama-cpp engine offline. What llama.cpp needs is listed in
// shared/PLATFORM.md ("node-llama-cpp and a model you make yourself"). Same options, same bytes.
import fs from 'node:fs';
import path from 'node:path';
import { ALWAYS_F32, FAMILIES, type FamilyName, type Shape, type TensorSink, outputNorm } from './families.js';
import { GgmlType, type GgufTensor, type GgufValue, gguf, writeGguf } from './gguf.js';

/** A ChatML template with tool calls, modelled on Qwen2.5's but without its default system text. */
export const CHATML_TEMPLATE = `{%- if tools %}
    {{- '<|im_start|>system\\n' }}
    {%- if messages[0]['role'] == 'system' %}
        {{- messages[0]['content'] + '\\n\\n' }}
    {%- endif %}
    {{- "# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided with function signatures within <tools></tools> XML tags:\\n<tools>" }}
    {%- for tool in tools %}
        {{- "\\n" }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- "\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}\\n</tool_call><|im_end|>\\n" }}
{%- else %}
    {%- if messages[0]['role'] == 'system' %}
        {{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}
    {%- endif %}
{%- endif %}
{%- for message in messages %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) or (message.role == "assistant" and not message.tool_calls) %}
        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role }}
        {%- if message.content %}
            {{- '\\n' + message.content }}
        {%- endif %}
        {%- for tool_call in message.tool_calls %}
            {%- if tool_call.function is defined %}
                {%- set tool_call = tool_call.function %}
            {%- endif %}
            {{- '\\n<tool_call>\\n{"name": "' }}
            {{- tool_call.name }}
            {{- '", "arguments": ' }}
            {{- tool_call.arguments | tojson }}
            {{- '}\\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\\n' }}
    {%- elif message.role == "tool" %}
        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\\n<tool_response>\\n' }}
        {{- message.content }}
        {{- '\\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\\n' }}
{%- endif %}
`;

export const CHATML_SPECIAL_TOKENS: readonly string[] = Object.freeze([
  '<|im_start|>',
  '<|im_end|>',
  '<tool_call>',
  '</tool_call>',
  '<tool_response>',
  '</tool_response>',
  '<think>',
  '</think>',
]);

/**
 * Architectures this writer can produce (families.ts). `llama` is the default. `qwen2` has the same
 * tensors (its q/k/v biases are optional in llama.cpp) and `qwen3` adds per-head q/k norms;
 * node-llama-cpp only considers its QwenChatWrapper for a Qwen architecture. `qwen35` and `lfm2` are
 * hybrid (recurrent layers beside attention), `gpt-oss` and `gemma4` attend in a sliding window.
 */
export type TestModelArchitecture = FamilyName;
export const TEST_MODEL_ARCHITECTURES = Object.keys(FAMILIES) as TestModelArchitecture[];

export interface TestModelOptions {
  /** general.architecture. Default 'llama'. */
  architecture?: TestModelArchitecture;
  /** Jinja chat template (tokenizer.chat_template). Default: CHATML_TEMPLATE. */
  template?: string;
  /** Special tokens the template uses; each becomes one token. Default: CHATML_SPECIAL_TOKENS. */
  specialTokens?: readonly string[];
  /**
   * Token type of the special tokens (and of bos/eos when new). 'control' (default): matched only
   * when tokenizing with special-token parsing, and rendered only when detokenizing with special
   * tokens on. 'userDefined': llama.cpp matches them in any text, even without special parsing,
   * and always renders them (as real Qwen GGUFs do for `<tool_call>`).
   */
  specialTokenType?: 'control' | 'userDefined';
  /** End-of-sequence token text (added to the vocabulary if new). Default '<|im_end|>'. */
  eos?: string;
  /** Beginning-of-sequence token text (added if new). Default '<s>'. */
  bos?: string;
  /** tokenizer.ggml.add_bos_token. Default: whether the template mentions bos_token. */
  addBos?: boolean;
  /** general.name. Default 'Keel test model'. */
  name?: string;
  /** general.size_label ("3B"): node-llama-cpp picks a wrapper by name and size label. Default none. */
  sizeLabel?: string;
  embedding?: number;
  layers?: number;
  heads?: number;
  /** Key/value heads (grouped-query attention). Default: heads. */
  kvHeads?: number;
  ff?: number;
  /** Attention window of the sliding-window layers (gpt-oss, gemma4), in tokens. Default 128. */
  window?: number;
  /** Store the 2-D weights as F16 (norms stay F32, as llama.cpp's converters do). */
  f16?: boolean;
  seed?: number;
  contextLength?: number;
}

/** The benchmark model: ≈26.5M weights in F16 (≈53 MB), big enough that prefill cost shows. */
export const BIG_MODEL_OPTIONS: Readonly<TestModelOptions> = Object.freeze({
  embedding: 512,
  layers: 8,
  heads: 8,
  ff: 1344,
  f16: true,
});

/** Token types of tokenizer.ggml.token_type (llama_token_type). */
export const TokenType = { normal: 1, unknown: 2, control: 3, userDefined: 4, unused: 5, byte: 6 } as const;

const SPACE = '\u2581'; // '▁', SentencePiece's mark for a space

/**
 * Common English and code words. Each enters the vocabulary bare and with a leading '▁', together
 * with every prefix (SPM builds a word by merging adjacent pieces, and only merges into pieces that
 * exist).
 */
const WORDS: readonly string[] = [
  // English
  'the', 'and', 'to', 'of', 'a', 'in', 'is', 'it', 'that', 'for', 'you', 'this', 'with', 'on', 'be',
  'are', 'as', 'not', 'have', 'I', 'we', 'can', 'will', 'do', 'at', 'or', 'by', 'an', 'what', 'all',
  'there', 'here', 'please', 'thanks', 'hello', 'world', 'yes', 'no', 'ok', 'done', 'now', 'then',
  'first', 'next', 'last', 'use', 'run', 'fix', 'add', 'change', 'check', 'find', 'make', 'look',
  'let', 'me', 'my', 'your', 'file', 'files', 'line', 'lines', 'code', 'test', 'tests', 'error',
  'errors', 'bug', 'result', 'output', 'input', 'list', 'read', 'write', 'edit', 'open', 'search',
  'replace', 'update', 'create', 'delete', 'project', 'folder', 'directory', 'command', 'build',
  'The', 'This', 'It', 'Let', 'OK', 'Hello', 'Done',
  // Chat and tool words
  'user', 'assistant', 'system', 'tool', 'tools', 'call', 'response', 'name', 'arguments', 'content',
  'role', 'message', 'function', 'parameters', 'description', 'properties', 'required', 'object',
  'path', 'pattern', 'query', 'old', 'new', 'text', 'offset', 'limit', 'timeout', 'glob', 'grep',
  'bash', 'src', 'main', 'index', 'package', 'json', 'README', 'md', 'ts', 'js', 'py', 'txt',
  // Code
  'const', 'var', 'if', 'else', 'return', 'import', 'export', 'from', 'default', 'class', 'interface',
  'type', 'async', 'await', 'true', 'false', 'null', 'undefined', 'string', 'number', 'boolean',
  'void', 'new', 'this', 'throw', 'try', 'catch', 'while', 'break', 'continue', 'switch', 'case',
  'def', 'self', 'print', 'None', 'True', 'False', 'value', 'key', 'data', 'length', 'push', 'map',
  'filter', 'console', 'log', 'require', 'module', 'describe', 'expect', 'toBe', 'Error',
];

/** Punctuation runs common in code and JSON (entered without '▁'; with prefixes). */
const SYMBOL_PIECES: readonly string[] = [
  '()', '();', '{}', '[]', '=>', '==', '===', '!=', '!==', '&&', '||', '//', '/*', '*/', '::', '->',
  '...', '":', '":"', '","', '"}', '"]', '{"', '["', '});', '),', '+=', '-=', '++', '--', '</', '/>',
];

export interface Vocabulary {
  tokens: string[];
  scores: number[];
  types: number[];
  ids: Map<string, number>;
  unk: number;
  bos: number;
  eos: number;
  pad: number;
}

/** Builds the SPM vocabulary: <unk> <s> </s>, 256 byte tokens, specials, then normal pieces. */
export function buildVocabulary(options: {
  specialTokens: readonly string[];
  bos: string;
  eos: string;
  specialTokenType?: 'control' | 'userDefined';
}): Vocabulary {
  const tokens: string[] = [];
  const scores: number[] = [];
  const types: number[] = [];
  const ids = new Map<string, number>();
  const add = (text: string, type: number, score = 0) => {
    if (ids.has(text)) return;
    ids.set(text, tokens.length);
    tokens.push(text);
    scores.push(score);
    types.push(type);
  };
  add('<unk>', TokenType.unknown);
  add('<s>', TokenType.control);
  add('</s>', TokenType.control);
  for (let b = 0; b < 256; b++) add(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`, TokenType.byte);
  const specialType = options.specialTokenType === 'userDefined' ? TokenType.userDefined : TokenType.control;
  for (const special of [...options.specialTokens, options.bos, options.eos]) {
    if (special === '') throw new Error('empty special token');
    add(special, specialType);
  }

  // Normal pieces, scored so that earlier (shorter, commoner) pieces merge first.
  const pieces: string[] = [SPACE];
  for (let c = 0x21; c <= 0x7e; c++) pieces.push(String.fromCharCode(c));
  const withPrefixes = (word: string) => {
    const chars = [...word];
    for (let n = 2; n <= chars.length; n++) pieces.push(chars.slice(0, n).join(''));
  };
  for (const word of WORDS) {
    withPrefixes(word);
    withPrefixes(SPACE + word);
  }
  for (const symbol of SYMBOL_PIECES) withPrefixes(symbol);
  let rank = 0;
  for (const piece of pieces) {
    if (ids.has(piece)) continue;
    add(piece, TokenType.normal, -rank);
    rank++;
  }
  const bos = ids.get(options.bos)!;
  const eos = ids.get(options.eos)!;
  return { tokens, scores, types, ids, unk: 0, bos, eos, pad: 0 };
}

/** mulberry32: a tiny seeded PRNG returning floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a of a string mixed with a seed: gives each tensor its own random stream. */
function streamSeed(seed: number, name: string): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

function randomMatrix(seed: number, name: string, dims: readonly number[]): Float32Array {
  const n = dims.reduce((a, b) => a * b, 1);
  const out = new Float32Array(n);
  const next = mulberry32(streamSeed(seed, name));
  const scale = 1 / Math.sqrt(dims[0]!); // uniform in ±1/sqrt(fan_in)
  for (let i = 0; i < n; i++) out[i] = (next() * 2 - 1) * scale;
  return out;
}

/** The options with defaults filled in. */
export function resolveTestModelOptions(options: TestModelOptions = {}) {
  const template = options.template ?? CHATML_TEMPLATE;
  const resolved = {
    architecture: options.architecture ?? 'llama',
    template,
    specialTokens: options.specialTokens ?? CHATML_SPECIAL_TOKENS,
    specialTokenType: options.specialTokenType ?? 'control',
    eos: options.eos ?? '<|im_end|>',
    bos: options.bos ?? '<s>',
    addBos: options.addBos ?? /\bbos_token\b/.test(template),
    name: options.name ?? 'Keel test model',
    sizeLabel: options.sizeLabel,
    embedding: options.embedding ?? 64,
    layers: options.layers ?? 2,
    heads: options.heads ?? 4,
    kvHeads: options.kvHeads ?? options.heads ?? 4,
    ff: options.ff ?? 128,
    window: options.window ?? 128,
    f16: options.f16 ?? false,
    seed: options.seed ?? 1,
    contextLength: options.contextLength ?? 32768,
  };
  const { embedding, heads, kvHeads } = resolved;
  for (const key of ['embedding', 'layers', 'heads', 'kvHeads', 'ff', 'window', 'contextLength'] as const) {
    if (!Number.isInteger(resolved[key]) || resolved[key] <= 0) throw new Error(`${key} must be a positive integer`);
  }
  if (embedding % heads !== 0) throw new Error('embedding must be a multiple of heads');
  if (heads % kvHeads !== 0) throw new Error('heads must be a multiple of kvHeads');
  if (!Object.hasOwn(FAMILIES, resolved.architecture)) {
    throw new Error(`unsupported architecture: ${resolved.architecture}`);
  }
  if ((embedding / heads) % 2 !== 0) throw new Error('head size (embedding / heads) must be even for RoPE');
  return resolved;
}

/** Builds a complete GGUF model file in memory. */
export function makeTestModel(options: TestModelOptions = {}): Buffer {
  const o = resolveTestModelOptions(options);
  const vocab = buildVocabulary(o);
  const nVocab = vocab.tokens.length;
  const headSize = o.embedding / o.heads;
  const weightType = o.f16 ? GgmlType.F16 : GgmlType.F32;

  const arch = o.architecture;
  const own = FAMILIES[arch].metadata(shapeOf(o)).map(([key, value]) => [`${arch}.${key}`, value] as const);
  const shared: Array<readonly [string, GgufValue]> = [
    ['general.architecture', gguf.string(arch)],
    ['general.name', gguf.string(o.name)],
    ...(o.sizeLabel === undefined ? [] : [['general.size_label', gguf.string(o.sizeLabel)] as const]),
    ['general.file_type', gguf.uint32(o.f16 ? 1 : 0)], // ALL_F32 / MOSTLY_F16
    [`${arch}.vocab_size`, gguf.uint32(nVocab)],
    [`${arch}.context_length`, gguf.uint32(o.contextLength)],
    [`${arch}.embedding_length`, gguf.uint32(o.embedding)],
    [`${arch}.block_count`, gguf.uint32(o.layers)],
    [`${arch}.feed_forward_length`, gguf.uint32(o.ff)],
    [`${arch}.attention.head_count`, gguf.uint32(o.heads)],
    [`${arch}.attention.head_count_kv`, gguf.uint32(o.kvHeads)],
    [`${arch}.attention.layer_norm_rms_epsilon`, gguf.float32(1e-5)],
    [`${arch}.rope.dimension_count`, gguf.uint32(headSize)],
    [`${arch}.rope.freq_base`, gguf.float32(10000)],
    ['tokenizer.ggml.model', gguf.string('llama')],
    ['tokenizer.ggml.tokens', gguf.stringArray(vocab.tokens)],
    ['tokenizer.ggml.scores', gguf.float32Array(vocab.scores)],
    ['tokenizer.ggml.token_type', gguf.int32Array(vocab.types)],
    ['tokenizer.ggml.bos_token_id', gguf.uint32(vocab.bos)],
    ['tokenizer.ggml.eos_token_id', gguf.uint32(vocab.eos)],
    ['tokenizer.ggml.unknown_token_id', gguf.uint32(vocab.unk)],
    ['tokenizer.ggml.padding_token_id', gguf.uint32(vocab.pad)],
    ['tokenizer.ggml.add_bos_token', gguf.bool(o.addBos)],
    ['tokenizer.ggml.add_eos_token', gguf.bool(false)],
    ['tokenizer.ggml.add_space_prefix', gguf.bool(false)],
    ['tokenizer.chat_template', gguf.string(o.template)],
  ];
  const metadata = [...shared.filter(([key]) => !own.some(([k]) => k === key)), ...own]; // the family's values win

  const tensors: GgufTensor[] = [];
  eachTensor(o, nVocab, {
    matrix: (name, dims) => tensors.push({ name, dims, type: ALWAYS_F32.test(name) ? GgmlType.F32 : weightType, data: randomMatrix(o.seed, name, dims) }),
    vector: (name, size, value = 1) => {
      const dims = typeof size === 'number' ? [size] : size;
      tensors.push({ name, dims, type: GgmlType.F32, data: new Float32Array(dims.reduce((a, b) => a * b, 1)).fill(value) });
    },
  });
  return writeGguf({ metadata, tensors });
}

type Resolved = ReturnType<typeof resolveTestModelOptions>;

const shapeOf = (o: Resolved): Shape => ({ ...o, headSize: o.embedding / o.heads });

/** Calls the sink for every tensor of the model, in file order. */
function eachTensor(o: Resolved, nVocab: number, sink: TensorSink): void {
  const family = FAMILIES[o.architecture];
  const shape = shapeOf(o);
  sink.matrix('token_embd.weight', [o.embedding, nVocab]);
  for (let i = 0; i < o.layers; i++) family.layer(sink, `blk.${i}`, i, shape);
  (family.globals ?? outputNorm)(sink, shape);
  if (!family.tiedOutput) sink.matrix('output.weight', [o.embedding, nVocab]);
}

/** Number of weights a model with these options has. */
export function testModelParameterCount(options: TestModelOptions = {}): number {
  const o = resolveTestModelOptions(options);
  let count = 0;
  const add = (_name: string, dims: number | readonly number[]) => {
    count += typeof dims === 'number' ? dims : dims.reduce((a, b) => a * b, 1);
  };
  eachTensor(o, buildVocabulary(o).tokens.length, { matrix: add, vector: add });
  return count;
}

/** Writes the model to `file` (creating its folder) and returns the bytes written. */
export function writeTestModel(file: string, options: TestModelOptions = {}): Buffer {
  const bytes = makeTestModel(options);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, bytes);
  return bytes;
}
