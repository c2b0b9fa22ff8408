/**
 * The server engine kind: a model on an OpenAI-compatible server. Its reference is the server's base
 * URL and the model's name; what a session records is `URL#MODEL`.
 */
import type { EngineKind } from '../core/engine/kind.js';
import { connectServer, serverModelId, type ServerConnection } from './connect.js';
import { ServerEngine } from './engine.js';
import { baseUrl } from './http.js';

export interface ServerRef {
  kind: 'server';
  /** The server's base URL (baseUrl: no trailing `/` or `/v1`). */
  url: string;
  model: string;
}

export interface ServerSource {
  kind: 'server';
  server: ServerConnection;
}

export const serverEngine: EngineKind<ServerRef, ServerSource> = {
  kind: 'server',
  parse(id) {
    const m = /^(https?:\/\/[^#\s]+)#(.+)$/.exec(id.trim());
    return m ? { kind: 'server', url: baseUrl(m[1]), model: m[2] } : undefined;
  },
  id: (ref) => serverModelId(ref.url, ref.model),
  async connect(ref, host) {
    const server = await connectServer({ url: ref.url, model: ref.model, apiKey: host.apiKey?.(ref.url), onNotice: host.notice });
    return { kind: 'server', server };
  },
  engine: (source) => new ServerEngine(source.server),
};
