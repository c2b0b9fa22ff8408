/**
 * MCP figures on the real servers: how long connecting takes (initialize + tools/list) per
 * transport, a call's round trip, and what a server's tool list costs in every request's prefix
 * (characters of the rendered tool list; tokens on the generated test model's tokenizer). The
 * `npx -y` rows start a server that is not in package.json as a README gives it: fetched from npm
 * into a fresh package cache on the first start, then from the cache, in the sandbox.
 * Prints figures; asserts nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { McpConnection, type ConnectionOptions } from '../main/mcp/connection.js';
import { preparePackage } from '../main/mcp/packages.js';
import { sandboxedLaunch } from '../main/mcp/sandboxed.js';
import { stopSandbox } from '../main/sandbox/runner.js';
import type { ServerConfig, Transport } from '../main/mcp/config.js';
import { everythingOverHttp, EVERYTHING, FILESYSTEM, nodeServer } from '../test/mcp/servers.js';
import { loadModel } from '../main/llm/model.js';
import { writeTestModel } from '../main/llm/testModel/makeTestModel.js';

const CALLS = 50;
const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-bench-mcp-')));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(label: string, name: string, transport: Transport, call: { tool: string; args: Record<string, unknown> }, o: Partial<ConnectionOptions> = {}) {
  const config: ServerConfig = { name, scope: 'given', file: path.join(tmp, 'bench.json'), transport };
  const c = new McpConnection(config, { cwd: tmp, ...o });
  const began = performance.now();
  await c.start();
  const connectMs = performance.now() - began;
  if (c.state !== 'connected') throw new Error(`${label}: ${c.lastError}`);
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now();
    const r = await c.call(call.tool, call.args);
    if (r.kind === 'error') throw new Error(`${label}: ${r.message}`);
    times.push(performance.now() - t);
  }
  const listed = JSON.stringify(c.specs());
  await c.stop();
  return { label, connectMs, callMs: median(times), tools: c.tools.length, listChars: listed.length, listed };
}

/** sequential-thinking from `npx -y`: the first start fetches it (outside the sandbox), the second runs it from the cache. */
async function npxRows() {
  const data = path.join(tmp, 'data');
  const transport: Transport = { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-sequential-thinking'], env: {} };
  const o: Partial<ConnectionOptions> = {
    wrapLaunch: sandboxedLaunch({ dataFolder: data }),
    prepare: (server, onProgress) => preparePackage(server, { dataFolder: data, cwd: tmp, onProgress }),
  };
  const call = { tool: 'mcp__think__sequentialthinking', args: { thought: 'x', nextThoughtNeeded: false, thoughtNumber: 1, totalThoughts: 1 } };
  return [
    await measure('think, npx -y (fetch + sandbox)', 'think', transport, call, o),
    await measure('think, npx -y (cached, sandbox)', 'think', transport, call, o),
  ];
}

const model = path.join(tmp, 'tiny.gguf');
writeTestModel(model);
const loaded = await loadModel({ modelPath: model, threads: 1, contextSize: 2048 });
const http = await everythingOverHttp('streamableHttp');
const sse = await everythingOverHttp('sse');
fs.writeFileSync(path.join(tmp, 'a.txt'), 'hello\n');
try {
  const rows = [
    await measure('everything, stdio', 'everything', nodeServer(EVERYTHING, ['stdio']), { tool: 'mcp__everything__echo', args: { message: 'x' } }),
    await measure('everything, Streamable HTTP', 'everything', { type: 'http', url: http.url, headers: {} }, { tool: 'mcp__everything__echo', args: { message: 'x' } }),
    await measure('everything, HTTP+SSE (fallback)', 'everything', { type: 'http', url: sse.url, headers: {} }, { tool: 'mcp__everything__echo', args: { message: 'x' } }),
    await measure('filesystem, stdio', 'fs', nodeServer(FILESYSTEM, [tmp]), { tool: 'mcp__fs__read_text_file', args: { path: path.join(tmp, 'a.txt') } }),
    ...await npxRows(),
  ];
  console.log(`MCP on ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}; call = median of ${CALLS}`);
  console.log('server                             connect ms   call ms   tools   tool list chars   tokens (test model)');
  for (const r of rows) {
    const tokens = loaded.model.tokenize(r.listed).length;
    console.log(`${r.label.padEnd(34)} ${r.connectMs.toFixed(0).padStart(10)} ${r.callMs.toFixed(2).padStart(9)} ${String(r.tools).padStart(7)} ${String(r.listChars).padStart(17)} ${String(tokens).padStart(21)}`);
  }
} finally {
  await http.stop();
  await sse.stop();
  await loaded.dispose();
  await stopSandbox();
  fs.rmSync(tmp, { recursive: true, force: true });
}
