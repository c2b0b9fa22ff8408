import { Template } from '@huggingface/jinja';
import type { LlamaModel, Token } from 'node-llama-cpp';

/**
 * What a chat template is given besides the conversation, as Hugging Face's `apply_chat_template`
 * gives it: the tokenizer's special tokens as text (`special_tokens_map`: bos_token, eos_token,
 * unk_token, sep_token, pad_token, cls_token, mask_token), read from the GGUF's tokenizer metadata.
 * A token the model does not have is left out, as Hugging Face leaves it out. Each render puts its
 * own BOS and EOS over these where it needs them as tokens (node-llama-cpp's markers, Keel's).
 */
export function specialTokenTexts(model: LlamaModel): Record<string, string> {
  const ggml = model.fileInfo.metadata?.tokenizer?.ggml;
  const ids: [string, number | undefined][] = [
    ['bos_token', ggml?.bos_token_id], ['eos_token', ggml?.eos_token_id], ['unk_token', ggml?.unknown_token_id],
    ['sep_token', ggml?.seperator_token_id], ['pad_token', ggml?.padding_token_id], ['cls_token', ggml?.cls_token_id],
    ['mask_token', ggml?.mask_token_id],
  ];
  const texts: Record<string, string> = {};
  for (const [name, id] of ids) {
    if (typeof id !== 'number' || id < 0) continue;
    const text = model.detokenize([id as Token], true);
    if (text !== '') texts[name] = text;
  }
  return texts;
}

/** What a failed render says: the message, and where a variable the template reads is missing, its name and line. */
export interface RenderFailure {
  message: string;
  variable?: string;
  line?: { number: number; text: string };
}

/**
 * Why the template fails to render with this context, or undefined where it renders. A variable
 * the template reads but is not given (`sep_token.strip()` with no such token, say) is named with
 * the first line that reads it: the engine's own message ("Cannot call something that is not a
 * function") names neither. It is found by giving each unknown name in turn: the one whose presence
 * changes the error is the one missing.
 */
export function renderFailure(template: string, context: Record<string, unknown>): RenderFailure | undefined {
  let jinja: Template;
  try {
    jinja = new Template(template);
  } catch (e) {
    return { message: (e as Error).message };
  }
  const attempt = (extra: Record<string, unknown>) => {
    try {
      jinja.render({ ...context, ...extra });
      return undefined;
    } catch (e) {
      return (e as Error).message;
    }
  };
  const message = attempt({});
  if (message === undefined) return undefined;
  const unknown = [...readNames(jinja.parsed)].filter((name) => !(name in context) && !GLOBALS.has(name));
  // The one name whose presence alone lets it render; else, where giving them all changes the
  // error, the one whose absence alone, all others given, still fails as before (two missing: the first).
  const given = (names: string[]) => Object.fromEntries(names.map((name) => [name, '']));
  const missing = unknown.find((name) => attempt(given([name])) === undefined)
    ?? (attempt(given(unknown)) === message ? undefined : unknown.find((name) => attempt(given(unknown.filter((n) => n !== name))) === message));
  if (missing === undefined) return { message };
  const line = firstLineReading(template, missing);
  return { message, variable: missing, ...(line ? { line } : {}) };
}

/** The failure as one sentence's middle: "`pad_token` is not given (line 3: …): the engine's message". */
export function describeFailure(f: RenderFailure): string {
  const where = f.line ? ` at line ${f.line.number} (${f.line.text})` : '';
  return f.variable ? `the variable ${f.variable} is not given${where}: ${f.message}` : `${where.trim()}${where ? ': ' : ''}${f.message}`;
}

/** Names the renderer defines itself (setupGlobals in @huggingface/jinja). */
const GLOBALS = new Set(['true', 'false', 'none', 'True', 'False', 'None', 'raise_exception', 'range', 'strftime_now', 'loop', 'namespace']);

/** Every identifier in the parsed template, in order of first appearance. */
function readNames(node: unknown, names = new Set<string>()): Set<string> {
  if (Array.isArray(node)) {
    for (const child of node) readNames(child, names);
  } else if (node && typeof node === 'object') {
    const record = node as Record<string, unknown>;
    if (record.type === 'Identifier' && typeof record.value === 'string') names.add(record.value);
    for (const [key, value] of Object.entries(record)) if (key !== 'value' || record.type !== 'Identifier') readNames(value, names);
    if (node instanceof Map) for (const [k, v] of node) readNames([k, v], names);
  }
  return names;
}

/** The first line that reads the name outside a string literal. */
function firstLineReading(template: string, name: string): { number: number; text: string } | undefined {
  const word = new RegExp(`(^|[^\\w.])${name}\\b`);
  const lines = template.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const code = lines[i].replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"/g, "''");
    if (word.test(code)) return { number: i + 1, text: lines[i].trim().slice(0, 120) };
  }
  return undefined;
}

/**
 * Keel's standard conversation as a template's context, the way Hugging Face passes it: system,
 * user, a call with its result, an answer, another user message, the tools, `add_generation_prompt`,
 * and what `parameters` hold (the special tokens' texts, the date).
 */
export function standardContext(parameters: Record<string, unknown>): Record<string, unknown> {
  const call = { id: 'call00001', type: 'function', function: { name: 'read', arguments: { path: 'a.txt' } } };
  return {
    messages: [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'What is in a.txt?' },
      { role: 'assistant', content: '', tool_calls: [call] },
      { role: 'tool', tool_call_id: 'call00001', content: 'alpha' },
      { role: 'assistant', content: 'It says alpha.' },
      { role: 'user', content: 'Thanks.' },
    ],
    tools: [{ type: 'function', function: { name: 'read', description: 'Reads a file.', parameters: { type: 'object', properties: { path: { type: 'string' } } } } }],
    add_generation_prompt: true,
    ...parameters,
  };
}
