import type { ChatModelFunctions } from 'node-llama-cpp';
import type { ParsedCall } from './replyFormat.js';

/**
 * Calls whose arguments are not one JSON object but a key and a value each, as the template writes
 * them: GLM's `<tool_call>name<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>`, Qwen3-Coder's
 * `<function=name>\n<parameter=k>\nv\n</parameter>\n</function>`, LFM2.5's `[name(k='v', n=7)]`.
 * Every piece is learnt from the template's own rendering of probe calls (`learnTaggedArgs`), as
 * llama.cpp's autoparser learns it (common/chat-diff-analyzer.cpp): no family is named.
 */
export interface TaggedArgs {
  /** After a call's name, before its first key (`<arg_key>`, `(`). */
  open: string;
  /** Between a key and its value (`</arg_key><arg_value>`, `=`). */
  assign: string;
  /** Between a value and the next key (`</arg_value><arg_key>`, `, `). */
  next: string;
  /** After the last value, to the call's end (`</arg_value></tool_call>`, `)`). */
  close: string;
  /** After the name of a call without arguments, to its end (`</tool_call>`, `()`). */
  empty: string;
  /** Between one call's end and the next call's name where calls share one block (LFM2.5's `, `); '' where each call opens with the prefix. */
  between: string;
  /** After the block's last call, where calls share one block (`]<|tool_call_end|>`). */
  blockEnd: string;
  /** How a string value is written: as it is, as JSON, or in Python's single quotes. */
  strings: 'bare' | 'json' | 'python';
}

const KEY_A = 'keel_a';
const KEY_B = 'keel_b';
const VALUE = 'KEEL_STR';
const NUMBER = 7;

/** The probe calls `learnTaggedArgs` has the template render, each list a model turn's calls. */
export const TAGGED_PROBES = {
  two: [{ name: 'keel_probe', args: { [KEY_A]: VALUE, [KEY_B]: NUMBER } }],
  one: [{ name: 'keel_probe', args: { [KEY_A]: VALUE } }],
  none: [{ name: 'keel_probe', args: {} }],
  pair: [{ name: 'keel_probe', args: { [KEY_A]: VALUE } }, { name: 'keel_two', args: {} }],
} as const;

/**
 * The argument syntax of a template, from its rendering of each of `TAGGED_PROBES` (the text from
 * the first call's name on: the model's turn and what follows it), given the call prefix and where
 * the model's turn ends (`turnEnds`); undefined where the calls do not have this shape.
 */
export function learnTaggedArgs(rendered: Record<keyof typeof TAGGED_PROBES, string>, prefix: string, turnEnds: readonly string[]): TaggedArgs | undefined {
  const name = 'keel_probe';
  const after = (text: string) => (text.startsWith(name) ? text.slice(name.length) : undefined);
  const [two, one, none, pair] = [after(rendered.two), after(rendered.one), after(rendered.none), after(rendered.pair)];
  if (two === undefined || one === undefined || none === undefined || pair === undefined) return undefined;
  const keyAt = two.indexOf(KEY_A);
  if (keyAt < 0) return undefined;
  const open = two.slice(0, keyAt);
  const encoded = ([['python', `'${VALUE}'`], ['json', `"${VALUE}"`], ['bare', VALUE]] as const).find(([, v]) => two.includes(v, keyAt));
  if (!encoded) return undefined;
  const [strings, value] = encoded;
  const valueAt = two.indexOf(value, keyAt);
  const assign = two.slice(keyAt + KEY_A.length, valueAt);
  const secondAt = two.indexOf(KEY_B, valueAt);
  if (secondAt < 0 || !two.startsWith(assign + NUMBER, secondAt + KEY_B.length)) return undefined;
  const next = two.slice(valueAt + value.length, secondAt);
  // After the last value: the one-call rendering ends the turn, the two-call one goes on to the next call.
  const oneTail = one.slice(one.indexOf(value) + value.length);
  const pairTail = pair.slice(pair.indexOf(value) + value.length);
  if (!two.endsWith(oneTail)) return undefined;
  const close = withinTag(commonPrefix(oneTail, pairTail));
  const nextName = pairTail.indexOf('keel_two');
  if (close === '' || nextName < close.length) return undefined;
  const gap = pairTail.slice(close.length, nextName);
  const rest = oneTail.slice(close.length);
  if (!none.endsWith(rest)) return undefined;
  const empty = none.slice(0, none.length - rest.length);
  if (empty === '' || open === '' || assign === '') return undefined;
  // Calls that each open with the prefix (GLM, Qwen3-Coder) need no block syntax; those that share one block (LFM2.5) end it once.
  if (gap.trim().endsWith(prefix.trim())) return { open, assign, next, close, empty, between: '', blockEnd: '', strings };
  const ends = turnEnds.map((e) => rest.indexOf(e)).filter((at) => at >= 0);
  if (ends.length === 0 || gap === '') return undefined;
  return { open, assign, next, close, empty, between: gap, blockEnd: rest.slice(0, Math.min(...ends)), strings };
}

/** The text common to the start of both, never ending inside a tag (`</tool_call><` is cut to `</tool_call>`). */
function commonPrefix(a: string, b: string): string {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return a.slice(0, n);
}

function withinTag(text: string): string {
  const open = text.lastIndexOf('<');
  return open > text.lastIndexOf('>') ? text.slice(0, open) : text;
}

/** What ends a call block (the stop text while generating): the text every call's end ends with. */
export function taggedSuffix(args: TaggedArgs): string {
  if (args.blockEnd !== '') return args.blockEnd;
  let n = 0;
  while (n < args.close.length && n < args.empty.length && args.close.at(-1 - n) === args.empty.at(-1 - n)) n++;
  return args.close.slice(args.close.length - n);
}

/** A call as a model trained on the template writes it (scripted replies), after the prefix. */
export function writeTaggedCall(args: TaggedArgs, calls: readonly { name: string; args: unknown }[]): string {
  const one = (call: { name: string; args: unknown }) => {
    const entries = Object.entries((call.args ?? {}) as Record<string, unknown>);
    if (entries.length === 0) return `${call.name}${args.empty}`;
    return `${call.name}${args.open}${entries.map(([k, v]) => `${k}${args.assign}${writeValue(args.strings, v)}`).join(args.next)}${args.close}`;
  };
  if (args.between === '') return calls.map(one).join('');
  return `${calls.map(one).join(args.between)}${args.blockEnd}`;
}

function writeValue(strings: TaggedArgs['strings'], value: unknown): string {
  if (typeof value === 'string') return strings === 'python' ? `'${value}'` : strings === 'json' ? JSON.stringify(value) : value;
  if (strings === 'python' && (typeof value === 'boolean' || value === null)) return value === null ? 'None' : value ? 'True' : 'False';
  return pythonJson(value);
}

/** JSON as Python's `json.dumps` writes it (`", "` and `": "`), as templates' `tojson` renders it. */
export function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (value && typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v)}`).join(', ')}}`;
  return JSON.stringify(value) ?? 'null';
}

/**
 * The calls of one block starting at `nameAt` (right after the prefix): each call with its exact
 * text, and where the block ends; `complete` is false while a call is still being written. A value
 * written as it is (GLM) is read by the tool's schema: text where the parameter is a string, JSON
 * otherwise, as llama.cpp reads it.
 */
export function readTaggedCalls(
  text: string, start: number, nameAt: number, args: TaggedArgs, functions?: ChatModelFunctions,
): { calls: ParsedCall[]; end: number; complete: boolean } {
  const calls: ParsedCall[] = [];
  let callStart = start;
  let at = nameAt;
  for (;;) {
    const call = readCall(text, at, args, functions);
    if (!call) return { calls, end: text.length, complete: false };
    calls.push({ ...call.parsed, raw: text.slice(callStart, call.end), start: callStart, end: call.end });
    if (args.between !== '' && text.startsWith(args.between, call.end)) {
      callStart = call.end;
      at = call.end + args.between.length;
      continue;
    }
    if (args.blockEnd === '') return { calls, end: call.end, complete: true };
    const rest = text.slice(call.end, call.end + args.blockEnd.length);
    // The block's end, or what may still become it, or (a model that wrote otherwise) the calls read so far.
    if (rest === args.blockEnd) return { calls, end: call.end + rest.length, complete: true };
    if (args.blockEnd.startsWith(rest) || args.between.startsWith(rest)) return { calls, end: text.length, complete: false };
    return { calls, end: call.end, complete: true };
  }
}

/** One call from its name: the name, then no arguments or key/value pairs, to its end. */
function readCall(text: string, at: number, args: TaggedArgs, functions?: ChatModelFunctions) {
  const ends = [args.empty, args.open].map((s) => text.indexOf(s, at)).filter((i) => i >= 0);
  if (ends.length === 0) return undefined;
  const nameEnd = Math.min(...ends);
  const name = text.slice(at, nameEnd).trim();
  if (text.startsWith(args.empty, nameEnd)) return { parsed: { name, args: {} }, end: nameEnd + args.empty.length };
  const values: Record<string, unknown> = {};
  const schema = functions?.[name]?.params as { properties?: Record<string, { type?: unknown }> } | undefined;
  let pos = nameEnd + args.open.length;
  for (;;) {
    const assignAt = text.indexOf(args.assign, pos);
    if (assignAt < 0) return undefined;
    const key = text.slice(pos, assignAt).trim();
    const value = readValue(text, assignAt + args.assign.length, args, schema?.properties?.[key]?.type);
    if (!value) return undefined;
    values[key] = value.value;
    if (text.startsWith(args.next, value.end)) {
      pos = value.end + args.next.length;
      continue;
    }
    if (text.startsWith(args.close, value.end)) return { parsed: { name, args: values }, end: value.end + args.close.length };
    return undefined;
  }
}

/** A value and where it ends: before the next key, the call's end or (in a block) the next call. */
function readValue(text: string, at: number, args: TaggedArgs, type: unknown): { value: unknown; end: number } | undefined {
  // The call's end comes before the next call's name too, so these two delimit every value.
  const delimiters = [args.next, args.close];
  const quote = args.strings === 'python' ? "'" : args.strings === 'json' ? '"' : '';
  if (quote !== '' && (text[at] === '{' || text[at] === '[')) {
    // A mapping or list (`tojson`, or Python's `['a', 'b']`): to its closing bracket, strings skipped.
    const end = bracketEnd(text, at);
    if (end < 0) return undefined;
    const inner = text.slice(at, end);
    return { value: parseOr(inner, undefined) ?? parseOr(inner.replace(/'/g, '"'), inner), end };
  }
  if (quote !== '' && text[at] === quote) {
    // A quoted string ends at a quote that a delimiter follows (LFM2.5 writes `'…'` without escapes).
    for (let q = text.indexOf(quote, at + 1); q >= 0; q = text.indexOf(quote, q + 1)) {
      if (delimiters.some((d) => text.startsWith(d, q + 1))) {
        const inner = text.slice(at, q + 1);
        return { value: quote === '"' ? parseOr(inner, inner.slice(1, -1)) : inner.slice(1, -1), end: q + 1 };
      }
    }
    return undefined;
  }
  const found = delimiters.map((d) => text.indexOf(d, at)).filter((i) => i >= 0);
  if (found.length === 0) return undefined;
  const end = Math.min(...found);
  const raw = text.slice(at, end);
  if (quote === '' && (type === 'string' || (Array.isArray(type) && type.includes('string')))) return { value: raw, end };
  const literal = args.strings === 'python' ? raw.replace(/^(True|False|None)$/, (w) => ({ True: 'true', False: 'false', None: 'null' })[w]!) : raw;
  return { value: parseOr(literal.trim(), raw), end };
}

/** Where the bracketed value at `start` ends (after its closing bracket), or -1; strings in either quote skipped. */
function bracketEnd(text: string, start: number): number {
  let depth = 0;
  let quote = '';
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (quote !== '') {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '{' || c === '[') depth++;
    else if ((c === '}' || c === ']') && --depth === 0) return i + 1;
  }
  return -1;
}

function parseOr(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}
