/**
 * A real llama-server for tests and bench:server: the binary scripts/buildLlamaServer.sh builds into
 * its cache folder (or KEEL_LLAMA_SERVER), started on a free loopback port with a generated test
 * GGUF and `--jinja`, stopped by the caller. Where the binary is missing, CI fails (the build script
 * runs first there) and a machine without it skips, saying how to build it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The build script's folder: llama.cpp's source (`src`, unpacked from node-llama-cpp's bundle) and its build. */
export function llamaServerFolder(): string {
  const info = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/node-llama-cpp/llama/llama.cpp.info.json'), 'utf8')) as { tag: string };
  const cache = process.env.KEEL_CACHE ?? path.join(os.homedir(), '.cache/keel');
  return path.join(cache, `llama-server-${info.tag}`);
}

/** Where the build script leaves llama-server (the same path it prints). */
export function llamaServerPath(): string {
  return process.env.KEEL_LLAMA_SERVER || path.join(llamaServerFolder(), 'build/bin/llama-server');
}

/** Undefined when the binary is there; else why not (a test skips with it, or fails in CI). */
export function llamaServerMissing(): string | undefined {
  const bin = llamaServerPath();
  if (fs.existsSync(bin)) return undefined;
  return `llama-server is not built at ${bin}: run \`bash scripts/buildLlamaServer.sh\` (CI's .ci/run does), or set KEEL_LLAMA_SERVER to a llama-server binary.`;
}

/** In CI (or where KEEL_LLAMA_SERVER names one) a missing binary is a failure, never a skip. */
export const mustHaveLlamaServer = process.env.CI === 'true' || process.env.KEEL_LLAMA_SERVER !== undefined;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export interface RunningServer {
  url: string;
  port: number;
  process: ChildProcess;
  /** What the server printed (its log), for a failing test's message. */
  log(): string;
  stop(): Promise<void>;
}

export interface StartOptions {
  model: string;
  contextSize?: number;
  slots?: number;
  apiKey?: string;
  alias?: string;
  threads?: number;
  /** More llama-server flags. */
  extraArgs?: string[];
}

/** Starts llama-server and waits until /health answers 200 (the model is loaded). */
export async function startLlamaServer(o: StartOptions): Promise<RunningServer> {
  const missing = llamaServerMissing();
  if (missing) throw new Error(missing);
  const port = await freePort();
  const args = [
    '-m', o.model, '--jinja', '--host', '127.0.0.1', '--port', String(port), '-t', String(o.threads ?? 1),
    '-c', String((o.contextSize ?? 8192) * (o.slots ?? 1)), '-np', String(o.slots ?? 1), '--no-webui',
    ...(o.alias ? ['--alias', o.alias] : []), ...(o.apiKey ? ['--api-key', o.apiKey] : []), ...(o.extraArgs ?? []),
  ];
  const child = spawn(llamaServerPath(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (b: Buffer) => {
    log = (log + b.toString()).slice(-20_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(t);
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`llama-server exited (${child.exitCode}) before it was ready:\n${log.slice(-3000)}`);
    if (await healthy(port)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`llama-server was not ready within 120 s:\n${log.slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, port, process: child, log: () => log, stop };
}

function healthy(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/health', timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => {
      req.destroy();
      resolve(false);
    });
  });
}
