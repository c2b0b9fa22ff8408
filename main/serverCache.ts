/**
 * How a llama-server keeps the cache of the model it serves, and which of its flags keep reuse
 * (issue 31). llama-server's `/props` names the model file; where that file is on this machine its
 * GGUF header says the architecture's class (node-llama-cpp's insights, as for a local model, never
 * the name). A hybrid model's state, or a sliding window, cannot be cut back: by default the server
 * takes a checkpoint only every 8,192 tokens (`--checkpoint-min-step`), so an undo, an edit or a
 * template that drops the last reply's reasoning re-reads up to that much, or everything.
 */
import fs from 'node:fs';
import { architectureOf } from './llm/architecture.js';
import { modelInsights } from './llm/fit.js';
import type { Architecture } from './llm/localSettings.js';
import { loadLlama } from './llm/model.js';
import { llamaProps } from './remote/connect.js';
import type { ServerClient } from './remote/http.js';
import { ServerError } from './remote/errors.js';

export interface ServerCacheReport {
  url: string;
  /** The model file the server says it serves, where it says one. */
  modelPath?: string;
  /** Its architecture, where the file is readable here. */
  architecture?: Architecture;
  /** Why the architecture is not known, where it is not. */
  unknown?: string;
  /** The flags that keep reuse on this model, in words; empty where the defaults do. */
  advice: string[];
  /**
   * Whether the server drafts tokens (speculative decoding, `/slots`), where it says: each request's
   * drafted and accepted tokens are then recorded beside its cache figures.
   */
  speculation?: { on: boolean; advice?: string };
}

/** llama-server's prompt lookup: drafts from the text already in the context, no draft model needed. */
const SPECULATION = 'start llama-server with --spec-type ngram-mod to draft tokens from the session\'s own text '
  + '(an agent\'s edits copy what it read); the output is the same, each request\'s accepted drafts are recorded';

const CHECKPOINTS = '--checkpoint-min-step 0 (a checkpoint at the end of every prompt, where the next request can depart, instead of one per 8,192 tokens; '
  + 'measured on Keel\'s scripted session: Qwen3.5 7.37× → 1.66×, LFM2 2.10× → 1.07× the ideal new tokens) '
  + 'with --ctx-checkpoints N above the turns you may undo (default 32), and --cache-ram MiB (default 8192) for the prompt cache of idle slots';
const WINDOW = '--swa-full (every token of the window layers kept: any prefix reused, more memory), or ' + CHECKPOINTS;

/** The server's model and the flags that keep its cache, from `/props` and the model file's header. */
export async function serverCache(client: ServerClient): Promise<ServerCacheReport> {
  const url = client.url;
  const props = await llamaProps(client);
  if (!props) return { url, unknown: `The server at ${url} is not llama-server (it has no /props): its cache flags are its own.`, advice: [] };
  const { modelPath } = props;
  const drafts = await speculates(client);
  const speculation = drafts === undefined ? {} : { speculation: drafts ? { on: true } : { on: false, advice: SPECULATION } };
  const unknown = (why: string): ServerCacheReport => ({
    url, ...(modelPath && { modelPath }), ...speculation, unknown: why,
    advice: [`If the model is hybrid (Qwen3.5, Qwen3-Next, Granite 4, LFM2, Nemotron-H…): ${CHECKPOINTS}.`, `If it attends in a sliding window (gpt-oss, Gemma 3/4): ${WINDOW}.`],
  });
  if (!modelPath) return unknown(`The server at ${url} does not say which model file it serves.`);
  if (!fs.existsSync(modelPath)) return unknown(`The model file ${modelPath} is not on this machine, so Keel cannot read its architecture.`);
  const architecture = architectureOf(await modelInsights(await loadLlama('cpu'), modelPath));
  const advice = architecture.class === 'hybrid' || architecture.class === 'recurrent' ? [`Start llama-server with ${CHECKPOINTS}.`]
    : architecture.class === 'sliding window' ? [`Start llama-server with ${WINDOW}.`] : [];
  return { url, modelPath, architecture, advice, ...speculation };
}

/** Whether the server's slots speculate (`/slots`); undefined where it does not say (`--no-slots`, not llama-server). */
async function speculates(client: ServerClient): Promise<boolean | undefined> {
  try {
    const slots = await client.getJson<{ speculative?: unknown }[]>('/slots');
    return Array.isArray(slots) && typeof slots[0]?.speculative === 'boolean' ? slots[0].speculative : undefined;
  } catch (e) {
    if (e instanceof ServerError) return undefined;
    throw e;
  }
}
