import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../db/store.js';
import { databasePath } from '../keelHome.js';
import { loadModel } from '../llm/model.js';
import { writeTestModel } from '../llm/testModel/makeTestModel.js';
import { callSyntax, formatCall } from '../llm/toolCalls.js';
import { sessionWrapper } from '../llm/wrapper.js';
import { entry, EVERYTHING, GROWING, nodeServer, writeConfig } from '../../test/mcp/servers.js';
import { sayOnce } from './commands/chat.js';
import { newConversation } from './commands/conversation.js';
import { cli, collector, tempKeelHome } from '../../test/cliRun.js';

let tmp: string;
let ws: string;
let home: string;

beforeEach((ctx) => {
  tmp = tempKeelHome(ctx, 'keel-climcp-');
  home = path.join(tmp, 'home');
  ws = path.join(tmp, 'ws');
  fs.mkdirSync(ws);
});

describe('keel mcp', { timeout: 60_000 }, () => {
  it('tools --config FILE: each server with its tool count, then each tool; exit 0 when every server answered', async () => {
    const file = writeConfig(path.join(tmp, 'servers.json'), { everything: entry(nodeServer(EVERYTHING, ['stdio'])), growing: entry(nodeServer(GROWING)) });
    const r = await cli('mcp', 'tools', '--config', file);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const blocks = r.out.trimEnd().split(/\n(?=server )/);
    expect(blocks.map((b) => b.split('\n')[0])).toEqual([expect.stringMatching(/^server everything: \d+ tools$/), 'server growing: 3 tools']);
    for (const block of blocks) {
      const [head, ...tools] = block.split('\n');
      expect(tools).toHaveLength(Number(/: (\d+) tools?$/.exec(head)![1]));
    }
    expect(r.out).toContain('\n  mcp__everything__echo (read-only)  Echoes back the input string\n');
    expect(r.out).toContain('\n  mcp__growing__look_around (read-only)  Says where the server runs.\n');
    expect(r.out).toContain('\n  mcp__growing__write_note  Writes note.txt in the folder the server runs in.\n');
  });

  it('tools: exit 1 when a server does not answer, saying why', async () => {
    const file = writeConfig(path.join(tmp, 'servers.json'), { growing: entry(nodeServer(GROWING)), missing: { command: 'keel-no-such-server' } });
    const r = await cli('mcp', 'tools', '--config', file);
    expect(r.code).toBe(1);
    expect(r.out).toContain('server growing: 3 tools\n');
    // Unsandboxed the spawn fails (ENOENT); in the sandbox its shell says so on stderr.
    expect(r.out).toMatch(/\nserver missing: did not answer: keel-no-such-server: (.*ENOENT|[^]*\nIts last words on stderr:\n[^]*keel-no-such-server: not found)/);
  });

  it("list, tools and approve for a workspace: its file's servers start only once approved", async () => {
    writeConfig(path.join(home, 'mcp.json'), { growing: entry(nodeServer(GROWING)) });
    writeConfig(path.join(ws, '.mcp.json'), { mine: entry(nodeServer(GROWING)) });
    const list = await cli('mcp', 'list', '--workspace', ws);
    expect(list.code).toBe(0);
    expect(list.out).toMatch(new RegExp(`^user file ${home}/mcp\\.json: read\nworkspace file ${ws}/\\.mcp\\.json: not approved \\(sha [0-9a-f]{8}; keel mcp approve\\)\n`));
    expect(list.out).toContain(`server growing (user): ${process.execPath} ${GROWING}\n`);
    expect(list.out).toContain(`server mine (workspace): ${process.execPath} ${GROWING} [not approved]\n`);

    const before = await cli('mcp', 'tools', '--workspace', ws);
    expect(before.code).toBe(1);
    expect(before.out).toContain('server growing: 3 tools\n');
    expect(before.out).toContain(`server mine: not started: ${ws}/.mcp.json is not approved (keel mcp approve)\n`);

    const approve = await cli('mcp', 'approve', '--workspace', ws);
    expect(approve.code).toBe(0);
    expect(approve.out).toMatch(new RegExp(`^server mine: .*\n {2}keeps its data in ${home}/mcp-data/mine-[0-9a-f]{12}\nApproved ${ws}/\\.mcp\\.json \\(sha [0-9a-f]{8}\\)`));
    const after = await cli('mcp', 'tools', '--workspace', ws);
    expect(after.code).toBe(0);
    expect(after.out).toContain('server mine: 3 tools\n');
  });

  it('refuses a sub-command it does not know, and a config file that is not there, naming it', async () => {
    expect(await cli('mcp', 'nope')).toMatchObject({ code: 1, err: expect.stringContaining('Unknown mcp command "nope"') });
    expect(await cli('mcp', 'tools', '--config', path.join(tmp, 'none.json'))).toMatchObject({
      code: 1, err: `keel: The MCP configuration ${path.join(tmp, 'none.json')} is not a file.\n`,
    });
    expect(await cli('mcp')).toMatchObject({ code: 1, err: expect.stringContaining('keel mcp takes 1 argument') });
    const broken = path.join(tmp, 'broken.json');
    fs.writeFileSync(broken, '{"mcpServers": [');
    const r = await cli('mcp', 'tools', '--config', broken);
    expect(r.out).toMatch(new RegExp(`^The MCP configuration ${broken} is not valid JSON`));
    expect(r.out).toContain('No MCP servers are configured.');
    expect(r.code).toBe(1);
  });

  it('a malformed workspace .mcp.json is reported, never "approved", cannot be approved, and fails tools', async () => {
    for (const [text, why] of [['{"mcpServers": {', 'is not valid JSON'], ['{"servers": {}}', 'has no "mcpServers" object'], ['{"mcpServers": []}', 'is wrong: "mcpServers" must be an object of servers']]) {
      fs.writeFileSync(path.join(ws, '.mcp.json'), text);
      const list = await cli('mcp', 'list', '--workspace', ws);
      expect(list.out).toContain(`workspace file ${ws}/.mcp.json: cannot be used\n  The MCP configuration ${ws}/.mcp.json ${why}`);
      expect(list.out).not.toContain('approved');
      expect(list.code).toBe(1);
      expect((await cli('mcp', 'tools', '--workspace', ws)).code).toBe(1);
      expect(await cli('mcp', 'approve', '--workspace', ws)).toMatchObject({ code: 1, err: expect.stringContaining('cannot be approved') });
    }
  });

  it('approve --allow-env lets the entries naming those variables read them, and shows them masked', async () => {
    writeConfig(path.join(ws, '.mcp.json'), { mine: { ...entry(nodeServer(GROWING)), env: { TOKEN: '${KEEL_TEST_TOKEN}' } } });
    process.env.KEEL_TEST_TOKEN = 'secret-token-value';
    try {
      const before = await cli('mcp', 'tools', '--workspace', ws);
      expect(before.code).toBe(1);
      const approve = await cli('mcp', 'approve', '--workspace', ws, '--allow-env', 'KEEL_TEST_TOKEN');
      expect(approve.out).toContain('  receives env.TOKEN: ${KEEL_TEST_TOKEN} → «KEEL_TEST_TOKEN: 18 characters»\n');
      expect(approve.out).not.toContain('secret-token-value');
      expect((await cli('mcp', 'tools', '--workspace', ws)).code).toBe(0);
    } finally {
      delete process.env.KEEL_TEST_TOKEN;
    }
  });
});

describe('a CLI session on MCP servers', { timeout: 180_000 }, () => {
  it('connects the servers before the session is made, and `say` answers through an MCP tool', async () => {
    writeConfig(path.join(home, 'mcp.json'), { everything: entry(nodeServer(EVERYTHING, ['stdio'])) });
    const model = path.join(tmp, 'tiny.gguf');
    writeTestModel(model);
    const probe = await loadModel({ modelPath: model, threads: 1, contextSize: 2048 });
    const syntax = callSyntax(sessionWrapper(probe.model, '2026-11-30'));
    await probe.dispose();
    const replies = [formatCall(syntax, 'mcp__everything__echo', { message: 'from the cli' }), 'The server echoed.'];
    const store = new SqliteStore(databasePath());
    const out = collector();
    const err = collector();
    try {
      const c = await newConversation(store, {
        workspace: ws, model, kind: 'agent', mode: 'auto', threads: 1, contextSize: 32768, script: { next: () => replies.shift() },
      }, { out, err });
      try {
        expect(c.session.tools.map((t) => t.name)).toContain('mcp__everything__echo');
        await sayOnce(c, 'Echo something.', { out, err });
      } finally {
        await c.close();
      }
    } finally {
      store.close();
    }
    expect(out.text).toMatch(/Created session \d+ .*\nThe server echoed\.\n$/);
    expect(err.text).toContain('── mcp__everything__echo {"message":"from the cli"}\n[#0001]\nEcho: from the cli\n');
  });
});
