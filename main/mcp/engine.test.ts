import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestRow } from '../core/state/types.js';
import { engineFixture, type EngineFixture } from '../engineFixture.js';
import { formatCall } from '../llm/toolCalls.js';
import { McpHub } from './hub.js';
import { entry, EVERYTHING, FILESYSTEM, nodeServer, writeConfig } from '../../test/mcp/servers.js';

let f: EngineFixture | undefined;
let hub: McpHub | undefined;
let tmp: string | undefined;
afterEach(async () => {
  await f?.dispose();
  await hub?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  f = hub = tmp = undefined;
});

const breaks = (rows: RequestRow[]) => rows.filter((r) => r.reusedTokens < r.cachedBefore || r.cause).map((r) => r.cause);

/** The real engine (node-llama-cpp on the generated model) with scripted replies, on real MCP servers. */
describe('a session using MCP tools end to end', { timeout: 240_000 }, () => {
  it('calls server-everything and server-filesystem tools, and keeps the prefix through the server being killed', async () => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-mcp-engine-')));
    const shared = path.join(tmp, 'shared');
    fs.mkdirSync(shared);
    fs.writeFileSync(path.join(shared, 'todo.txt'), 'ship MCP\n');
    writeConfig(path.join(tmp, 'mcp.json'), { everything: entry(nodeServer(EVERYTHING, ['stdio'])), files: entry(nodeServer(FILESYSTEM, [shared])) });
    hub = new McpHub({ root: tmp, dataFolder: tmp });
    await hub.start();
    f = await engineFixture({ mode: 'auto', external: hub, contextSize: 32768 });
    const call = (name: string, args: unknown) => formatCall(f!.syntax(), name, args);

    const prompt0 = f.agent.promptText();
    // The tools the model is offered are the servers' own, described as they listed them.
    expect(prompt0).toContain('mcp__everything__echo');
    expect(prompt0).toContain('Echoes back the input string');
    expect(prompt0).toContain('mcp__files__read_text_file');
    expect(prompt0).toContain('# Instructions from the MCP server everything');

    f.replies.push(
      call('mcp__everything__echo', { message: 'ping' }),
      call('mcp__files__read_text_file', { path: path.join(shared, 'todo.txt') }),
      'The server said ping; the file says ship MCP.',
    );
    expect(await f.agent.send('Use the servers.')).toBe('The server said ping; the file says ship MCP.');
    const results = f.events.flatMap((e) => (e.type === 'tool' ? [e.result.text] : []));
    expect(results).toEqual(['[#0001]\nEcho: ping', '[#0002]\nship MCP\n']);
    const prompt1 = f.agent.promptText();
    expect(prompt1).toContain('Echo: ping');

    process.kill(hub.connection('everything')!.pid!, 'SIGKILL');
    await until(() => hub!.connection('everything')!.state === 'disconnected');
    f.replies.push(call('mcp__everything__echo', { message: 'again' }), 'The server is down.');
    expect(await f.agent.send('Once more.')).toBe('The server is down.');
    const last = f.events.flatMap((e) => (e.type === 'tool' ? [e.result.text] : [])).at(-1);
    expect(last).toMatch(/^\[#0003\]\nError: mcp__everything__echo is unavailable: the MCP server everything is not connected/);

    // What was sent before the failure is the start of what is sent after it, byte for byte.
    const answered = prompt1.indexOf('The server said ping; the file says ship MCP.');
    expect(answered).toBeGreaterThan(0);
    expect(f.agent.promptText().startsWith(prompt1.slice(0, answered))).toBe(true);
    const rows = f.agent.requests();
    expect(rows).toHaveLength(5);
    expect(new Set(rows.map((r) => r.systemSha)).size).toBe(1);
    expect(new Set(rows.map((r) => r.toolsSha)).size).toBe(1);
    expect(breaks(rows)).toEqual([]);
  });
});

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}
