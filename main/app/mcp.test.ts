import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KeelEvent } from '../contract.js';
import { loadModel } from '../llm/model.js';
import { callSyntax, formatCall } from '../llm/toolCalls.js';
import { sessionWrapper } from '../llm/wrapper.js';
import { entry, GROWING, nodeServer, writeConfig } from '../../test/mcp/servers.js';
import { checkCall } from './checkCall.js';
import type { KeelService } from './service.js';
import { closeTestService, openTestService, type TestService } from '../../test/appService.js';

let dir: string;
let ws: string;
let service: KeelService;
let events: KeelEvent[];
const replies: string[] = [];

let t: TestService;
beforeEach(() => {
  t = openTestService('keel-appmcp-', replies, { contextSize: 8192 });
  ({ dir, ws, service, events } = t);
});
afterEach(() => closeTestService(t));

describe('MCP in the app service', { timeout: 120_000 }, () => {
  it("runs a session's MCP call through the engine, and the Servers view tells what waits for the next session", async () => {
    writeConfig(path.join(dir, 'data', 'mcp.json'), { growing: entry(nodeServer(GROWING)) });
    await service.setModelsFolder(path.join(dir, 'models'));
    await service.loadModel((await service.listModels())[0].path);
    const summary = await service.createSession({ workspace: ws, kind: 'agent', mode: 'auto' });
    const loaded = await loadModel({ modelPath: path.join(dir, 'models', 'tiny.gguf'), threads: 1, contextSize: 2048 });
    const syntax = callSyntax(sessionWrapper(loaded.model, '2026-11-30'));
    await loaded.dispose();
    replies.push(formatCall(syntax, 'mcp__growing__grow', {}), 'It grew.');
    await service.send(summary.id, 'Grow the server.');

    const view = await service.openSession(summary.id);
    const tool = view.turns[0].parts.find((p) => p.type === 'tool');
    expect(tool?.type === 'tool' && tool.tool).toMatchObject({ name: 'mcp__growing__grow', text: '[#0001]\nGrown.' });
    await until(() => events.some((e) => e.type === 'mcp-changed' && e.workspace === ws)
      && service.mcpServers(ws, summary.id).then((v) => v.servers[0].waiting?.length === 1));
    const servers = await service.mcpServers(ws, summary.id);
    expect(servers.servers).toMatchObject([{ name: 'growing', scope: 'user', state: 'connected', waiting: [{ name: 'mcp__growing__grown', change: 'new' }] }]);
    // A new session takes the grown tool; the running one keeps its list.
    const next = await service.createSession({ workspace: ws, kind: 'agent', mode: 'auto' });
    expect((await service.mcpServers(ws, next.id)).servers[0].waiting).toEqual([]);
  });

  it("starts a workspace file's servers only after approveMcpFile with the hash the view showed", async () => {
    writeConfig(path.join(ws, '.mcp.json'), { growing: entry(nodeServer(GROWING)) });
    const first = await service.createSession({ workspace: ws, kind: 'agent', mode: 'auto' });
    const before = await service.mcpServers(ws, first.id);
    expect(before.files.find((f) => f.scope === 'workspace')).toMatchObject({ needsApproval: true, servers: ['growing'] });
    expect(before.servers).toMatchObject([{ name: 'growing', state: 'not approved', scope: 'workspace' }]);
    await expect(service.restartMcpServer(ws, 'growing')).rejects.toThrow(/its file is not approved/);
    await service.approveMcpFile(ws, before.files.find((f) => f.scope === 'workspace')!.hash);
    expect((await service.mcpServers(ws)).servers).toMatchObject([{ name: 'growing', state: 'connected' }]);
    // The first session began without them: they wait for the next one.
    expect((await service.mcpServers(ws, first.id)).servers[0].waiting?.map((w) => w.name)).toEqual(
      ['mcp__growing__grow', 'mcp__growing__look_around', 'mcp__growing__write_note'],
    );
    await service.trustMcpServer(ws, 'growing', true);
    expect((await service.mcpServers(ws)).servers[0].trusted).toBe(true);
    await expect(service.mcpServers(path.join(dir, 'nowhere'))).rejects.toThrow(`The workspace ${path.join(dir, 'nowhere')} does not exist.`);
  });

  it('checks the MCP methods against the contract', () => {
    expect(checkCall('mcpServers', ['/w'])).toBe('mcpServers');
    expect(() => checkCall('trustMcpServer', ['/w', 'x', 'yes'])).toThrow('must be true or false');
    expect(() => checkCall('approveMcpFile', ['/w'])).toThrow('needs 2 arguments');
  });
});

async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}
