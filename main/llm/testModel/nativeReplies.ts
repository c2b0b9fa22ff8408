/**
 * A scripted reply written the way a model trained on its chat template writes it: what the
 * model's own wrapper renders for a model turn holding that text and that call, after the
 * generation prompt, up to the end of the call (a model writes its call, not the result). Where
 * the wrapper's rendering does not extend its generation prompt, the call is written with the
 * wrapper's call syntax (formatCall) instead. Used by tests and benchmarks, so that what Keel reads
 * back was written by the wrapper, not by Keel's own reading of it.
 */
import { type ChatHistoryItem, type ChatModelFunctions, type ChatWrapper, type LlamaModel } from 'node-llama-cpp';
import { generationOpensThought } from '../generationPrompt.js';
import { pythonJson } from '../taggedCalls.js';
import { callSyntax, formatCall, jsonEnd } from '../toolCalls.js';

/** A reply to script: the reasoning before it (where the wrapper writes reasoning), its words, and the call it ends with. */
export interface Reply {
  thought?: string;
  text: string;
  call?: { name: string; args: unknown };
}

const CUT = 'KEEL_BENCH_RESULT_c0ffee';

export function nativeReplies(model: LlamaModel, wrapper: ChatWrapper, functions: ChatModelFunctions): (r: Reply) => string {
  const syntax = callSyntax(wrapper);
  const base: ChatHistoryItem[] = [{ type: 'system', text: 'You are a coding agent.' }, { type: 'user', text: 'Go on.' }];
  const render = (response: Extract<ChatHistoryItem, { type: 'model' }>['response']) =>
    model.detokenize(wrapper.generateContextState({ chatHistory: [...base, { type: 'model', response }], availableFunctions: functions })
      .contextText.tokenize(model.tokenizer), true);
  const open = render([]);
  const write = (r: Reply): string | undefined => {
    const response: Extract<ChatHistoryItem, { type: 'model' }>['response'] = r.text ? [r.text] : [];
    if (r.thought !== undefined) response.unshift({ type: 'segment', segmentType: 'thought', text: r.thought, ended: true });
    if (r.call) response.push({ type: 'functionCall', name: r.call.name, params: r.call.args, result: CUT });
    const full = render(response);
    if (!full.startsWith(open)) return undefined;
    const written = full.slice(open.length);
    if (!r.call) return written;
    const resultAt = written.indexOf(CUT);
    if (resultAt < 0) return undefined;
    // The call's name is the last one before its arguments (a command may name it too: `bash x.sh`),
    // or before its end (a result that names its tool, as Muse's does, comes after).
    const callEnd = syntax.suffix === '' ? resultAt : written.lastIndexOf(syntax.suffix, resultAt);
    const argsAt = written.lastIndexOf(pythonJson(r.call.args), callEnd);
    const named = written.lastIndexOf(r.call.name, argsAt < 0 ? callEnd : argsAt);
    // The params prefix after the call's name (Functionary's is `\n`, which the result's turn holds too).
    const params = named < 0 ? -1 : written.indexOf(syntax.paramsPrefix, named + r.call.name.length);
    if (params < 0) return undefined;
    const end = syntax.suffix === '' ? jsonEnd(written, params + syntax.paramsPrefix.length) : written.lastIndexOf(syntax.suffix, resultAt) + syntax.suffix.length;
    return end > params ? written.slice(0, end) : undefined;
  };
  // A generation prompt that opens a thought (QwQ's and Nemotron's `<think>\n`, as Keel reads it: chooseFormat.ts):
  // the model closes it before it answers. The wrapper's own rendering of an empty thought is tried first.
  const opened = generationOpensThought(wrapper);
  const closed = (r: Reply, out: string): string => {
    if (!opened || out.includes(opened.suffix)) return out;
    const rest = r.thought && out.startsWith(r.thought) ? out.slice(r.thought.length) : out;
    return `${r.thought ?? ''}${opened.suffix}${rest}`;
  };
  return (r) => {
    const fallback = () => (r.call ? `${r.text ? `${r.text}${syntax.separator}` : ''}${formatCall(syntax, r.call.name, r.call.args)}` : r.text);
    return closed(r, write(r) ?? (r.thought === undefined ? write({ ...r, thought: '' }) : undefined) ?? fallback());
  };
}
