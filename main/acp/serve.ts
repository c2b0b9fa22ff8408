/**
 * `keel acp`: Keel's service on the app's data folder, spoken over ACP on standard input and
 * output until the editor closes them. Standard output carries nothing but JSON-RPC; what Keel
 * has to say to a person (a model loading, a store it cannot open) goes to standard error.
 */
import { Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import pkg from '../../package.json' with { type: 'json' };
import { startHost, type HostOptions } from '../appHost.js';
import type { Mode } from '../contract.js';
import type { FileSource } from '../core/tools/fileSource.js';
import { acpAgent } from './agent.js';

export interface AcpServeOptions extends Pick<HostOptions, 'dataFolder' | 'promptsDir' | 'threads' | 'contextSize' | 'scriptFor'> {
  /** A GGUF file to load (it becomes the app's model, as the picker makes it); or, with `server`, the server's model name. */
  model?: string;
  server?: string;
  mode?: Mode;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  log: (line: string) => void;
}

/** Serves one editor until it closes the connection; then stops what runs, saves each session's cache, and closes the store. */
export async function serveAcp(o: AcpServeOptions): Promise<void> {
  // The editor's buffers, by session: the agent fills it as sessions open, the file tools read it.
  const files = new Map<number, FileSource>();
  const host = startHost({
    dataFolder: o.dataFolder, promptsDir: o.promptsDir, threads: o.threads, contextSize: o.contextSize, scriptFor: o.scriptFor, files: (id) => files.get(id),
  });
  try {
    if (host.problem) throw new Error(host.problem);
    if (o.server !== undefined) {
      if (o.model === undefined) throw new Error('--server needs --model NAME: the model the server runs');
      o.log(`Using ${await host.api.useServerModel(o.server, o.model)}.`);
    } else if (o.model !== undefined) {
      o.log(`Loading ${o.model}…`);
      await host.api.loadModel(o.model);
    } else {
      const { lastModel } = await host.api.getState();
      o.log(lastModel ? `Sessions use the model the app last used: ${lastModel}.` : 'No model chosen yet: pass --model FILE, or load one in the app first.');
    }
    const { app, stopAll } = acpAgent(host, { version: pkg.version, mode: o.mode, log: o.log, files });
    const stream = ndJsonStream(Writable.toWeb(o.output as Writable), Readable.toWeb(o.input as Readable) as ReadableStream<Uint8Array>);
    const connection = app.connect(stream);
    o.log('Keel speaks ACP on standard input and output.');
    await connection.closed;
    await stopAll();
  } finally {
    await host.close();
  }
}
