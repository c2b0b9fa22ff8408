/**
 * The real MCP servers tests run against: the npm packages (dev dependencies) started the way a
 * person's configuration starts them, and the two small scripts beside this file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Transport } from '../../main/mcp/config.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = path.resolve(here, '../../node_modules');

export const EVERYTHING = path.join(modules, '@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM = path.join(modules, '@modelcontextprotocol/server-filesystem/dist/index.js');
export const GROWING = path.join(here, 'growing.mjs');
export const GARBAGE = path.join(here, 'garbage.mjs');

/** A stdio entry running a script with this very Node. */
export function nodeServer(script: string, args: string[] = [], env: Record<string, string> = {}): Transport {
  return { type: 'stdio', command: process.execPath, args: [script, ...args], env };
}

/** Writes `{"mcpServers": …}` to `file`. */
export function writeConfig(file: string, servers: Record<string, unknown>): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ mcpServers: servers }, null, 2));
  return file;
}

/** The config-file form of a transport. */
export function entry(t: Transport): Record<string, unknown> {
  return t.type === 'stdio' ? { command: t.command, args: t.args, env: t.env } : { type: t.type, url: t.url, headers: t.headers };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** server-everything over HTTP (`streamableHttp` or the older `sse`), on a free loopback port. */
export async function everythingOverHttp(mode: 'streamableHttp' | 'sse'): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [EVERYTHING, mode], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`server-everything ${mode} did not start: ${seen}`)), 20_000);
    const look = (chunk: Buffer) => {
      seen += chunk.toString();
      if (/listening on port|running on port/i.test(seen)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', look);
    child.stderr?.on('data', look);
    child.once('exit', (code) => reject(new Error(`server-everything ${mode} exited (${code}): ${seen}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/${mode === 'sse' ? 'sse' : 'mcp'}`,
    stop: () => new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    }),
  };
}
