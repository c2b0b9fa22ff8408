/**
 * Opening a model server: its models from `/v1/models`, and where it is llama-server (it answers
 * `/props`), its context size per slot, its slot count and its chat template. Asking first means a
 * wrong URL, a wrong key or an unknown model is said before a session is made, not mid-turn.
 */
import { ServerError } from './errors.js';
import { ServerClient, type ClientOptions } from './http.js';

export interface LlamaServerProps {
  /** Tokens one slot holds (`default_generation_settings.n_ctx`). */
  contextSize: number;
  /** Slots (`total_slots`, the server's `-np`): one per session keeps sessions from evicting each other. */
  slots: number;
  /** The chat template the server renders with. */
  template: string;
  /** The model file it serves (`model_path`), where it says. */
  modelPath?: string;
}

export interface ServerConnection {
  client: ServerClient;
  model: string;
  /** Every model the server lists. */
  models: string[];
  /** Present where the server is llama-server. */
  llama?: LlamaServerProps;
  /** The context size the server reports for the model elsewhere (vLLM's `max_model_len`), if any. */
  contextSize?: number;
}

interface ModelsAnswer {
  data?: { id?: string; aliases?: string[]; max_model_len?: number; meta?: { n_ctx?: number } }[];
}

/** The models a server lists (the picker's list), as `/v1/models` gives them. */
export async function listModels(o: ClientOptions): Promise<string[]> {
  const client = new ServerClient(o);
  return names(await models(client));
}

async function models(client: ServerClient): Promise<ModelsAnswer> {
  const answer = await client.getJson<ModelsAnswer>('/v1/models');
  if (!Array.isArray(answer?.data)) {
    throw new ServerError('malformed', client.url, `The server at ${client.url} answered /v1/models without a model list. Check that the URL is an OpenAI-compatible server.`);
  }
  return answer;
}

function names(answer: ModelsAnswer): string[] {
  return (answer.data ?? []).map((m) => m.id).filter((id): id is string => typeof id === 'string');
}

/** Checks the server and the model; throws a ServerError that says what to do otherwise. */
export async function connectServer(o: ClientOptions & { model: string }): Promise<ServerConnection> {
  const client = new ServerClient(o);
  const answer = await models(client);
  const list = names(answer);
  const entry = (answer.data ?? []).find((m) => m.id === o.model || m.aliases?.includes(o.model));
  if (!entry) {
    throw new ServerError('unknown model', client.url, `The server at ${client.url} does not serve a model "${o.model}". It serves: ${list.join(', ') || 'none'}. Choose one of those.`);
  }
  return { client, model: o.model, models: list, llama: await llamaProps(client), contextSize: entry.max_model_len ?? entry.meta?.n_ctx };
}

interface PropsAnswer {
  default_generation_settings?: { n_ctx?: number };
  total_slots?: number;
  chat_template?: string;
  model_path?: string;
}

/** What llama-server says of itself at `/props`; undefined from a server that is not llama-server. */
export async function llamaProps(client: ServerClient): Promise<LlamaServerProps | undefined> {
  let props: PropsAnswer;
  try {
    props = await client.getJson<PropsAnswer>('/props');
  } catch (e) {
    if (e instanceof ServerError && (e.fault === 'not found' || e.fault === 'malformed' || e.fault === 'http')) return undefined;
    throw e;
  }
  const n = props.default_generation_settings?.n_ctx;
  if (typeof n !== 'number' || typeof props.total_slots !== 'number') return undefined;
  return {
    contextSize: n, slots: props.total_slots, template: props.chat_template ?? '',
    ...(typeof props.model_path === 'string' && { modelPath: props.model_path }),
  };
}

/** The model a session records for a server's model: the base URL and the model's name. */
export function serverModelId(url: string, model: string): string {
  return `${url}#${model}`;
}
