import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpApprovals } from './approvals.js';
import { readConfigFile } from './config.js';

let tmp: string;
beforeEach(() => { tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-mcpconf-'))); });
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const write = (name: string, content: unknown) => {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
};

describe('MCP configuration files', () => {
  it("reads a stdio entry's sandbox exactly: what it may write and reach; a typo leaves the entry out", () => {
    const file = write('.mcp.json', {
      mcpServers: {
        writer: { command: 'srv', sandbox: { writeWorkspace: true, allowedDomains: ['api.example.com'] } },
        reader: { command: 'srv', sandbox: { writeWorkspace: false } },
        plain: { command: 'srv' },
        typo: { command: 'srv', sandbox: { writeWorkSpace: true } },
        wrong: { command: 'srv', sandbox: { allowedDomains: 'api.example.com' } },
      },
    });
    const c = readConfigFile(file, 'workspace', { env: {} });
    expect(c.servers.map((s) => [s.name, s.transport])).toEqual([
      ['writer', { type: 'stdio', command: 'srv', args: [], env: {}, sandbox: { writeWorkspace: true, allowedDomains: ['api.example.com'] } }],
      ['reader', { type: 'stdio', command: 'srv', args: [], env: {}, sandbox: {} }],
      ['plain', { type: 'stdio', command: 'srv', args: [], env: {} }],
    ]);
    expect(c.problems).toEqual([
      `The MCP server "typo" in ${file} is left out: "sandbox" holds "writeWorkSpace"; it takes "writeWorkspace" and "allowedDomains".`,
      `The MCP server "wrong" in ${file} is left out: "sandbox.allowedDomains" must be a list of strings.`,
    ]);
  });

  it("reads Claude Code's format: stdio and http entries, with ${VAR} and ${VAR:-default}", () => {
    const file = write('.mcp.json', {
      mcpServers: {
        files: { command: 'npx', args: ['-y', 'pkg', '${HOME_DIR}'], env: { TOKEN: '${TOKEN:-none}' } },
        remote: { type: 'http', url: 'https://example.com/${PATH_PART}', headers: { Authorization: 'Bearer ${TOKEN}' } },
        old: { type: 'sse', url: 'http://127.0.0.1:9/sse' },
        bare: { url: 'http://127.0.0.1:9/mcp' },
      },
    });
    const c = readConfigFile(file, 'user', { env: { HOME_DIR: '/home/me', PATH_PART: 'mcp', TOKEN: 't0k' } });
    expect(c.problems).toEqual([]);
    expect(c.exists).toBe(true);
    expect(c.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(c.servers.map((s) => [s.name, s.transport])).toEqual([
      ['files', { type: 'stdio', command: 'npx', args: ['-y', 'pkg', '/home/me'], env: { TOKEN: 't0k' } }],
      ['remote', { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer t0k' } }],
      ['old', { type: 'sse', url: 'http://127.0.0.1:9/sse', headers: {} }],
      ['bare', { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: {} }],
    ]);
    expect(readConfigFile(file, 'user', { env: { HOME_DIR: '/h', PATH_PART: 'x' } }).servers[0].transport).toMatchObject({ env: { TOKEN: 'none' } });
  });

  it('leaves out a bad entry with a reason naming the file, and keeps the others', () => {
    const file = write('.mcp.json', {
      mcpServers: {
        good: { command: 'node' },
        'bad name': { command: 'node' },
        'two__parts': { command: 'node' },
        nocommand: { args: ['x'] },
        badargs: { command: 'node', args: 'x' },
        ftp: { type: 'http', url: 'ftp://example.com' },
        unset: { command: '${NOT_SET_ANYWHERE}' },
        kind: { type: 'websocket', url: 'ws://x' },
      },
    });
    const c = readConfigFile(file, 'user', { env: {} });
    expect(c.servers.map((s) => s.name)).toEqual(['good', 'unset']);
    expect(c.servers[1].missing).toBe('command uses ${NOT_SET_ANYWHERE}, which is not set');
    expect(c.problems).toEqual([
      `The MCP server "bad name" in ${file} is left out: a server name may hold only letters, digits, "-" and single "_".`,
      `The MCP server "two__parts" in ${file} is left out: a server name may hold only letters, digits, "-" and single "_".`,
      `The MCP server "nocommand" in ${file} is left out: "command" must be a non-empty string.`,
      `The MCP server "badargs" in ${file} is left out: "args" must be a list of strings.`,
      `The MCP server "ftp" in ${file} is left out: "url" must be http or https, not ftp:.`,
      `The MCP server "kind" in ${file} is left out: "type" "websocket" is not one Keel knows (stdio, http, sse).`,
    ]);
  });

  it('says what is wrong with a file that is not JSON or has no mcpServers, and a missing file is no problem', () => {
    const broken = write('broken.json', '{ "mcpServers": { ');
    expect(readConfigFile(broken, 'workspace').problems[0]).toMatch(new RegExp(`^The MCP configuration ${broken} is not valid JSON \\(.+\\); its servers are not started\\.$`));
    expect(readConfigFile(write('other.json', { servers: {} }), 'workspace').problems[0]).toMatch(/has no "mcpServers" object/);
    expect(readConfigFile(path.join(tmp, 'none.json'), 'workspace')).toMatchObject({ exists: false, hash: '', servers: [], problems: [] });
  });
});

describe('MCP approvals', () => {
  it('approves a file by its content hash and trusts a server by its exact entry', () => {
    const a = new McpApprovals(path.join(tmp, 'data'));
    const file = write('.mcp.json', { mcpServers: { s: { command: 'node' } } });
    const c = readConfigFile(file, 'workspace');
    expect(a.isApproved(file, c.hash)).toBe(false);
    a.approve(file, c.hash);
    expect(new McpApprovals(path.join(tmp, 'data')).isApproved(file, c.hash)).toBe(true);
    write('.mcp.json', { mcpServers: { s: { command: 'node', args: ['evil.js'] } } });
    const changed = readConfigFile(file, 'workspace');
    expect(a.isApproved(file, changed.hash)).toBe(false);
    a.setTrusted(c.servers[0], true);
    expect(a.trusts(c.servers[0])).toBe(true);
    expect(a.trusts(changed.servers[0])).toBe(false);
    a.setTrusted(c.servers[0], false);
    expect(a.trusts(c.servers[0])).toBe(false);
  });

  it('refuses to use or overwrite an approvals file it cannot read, naming it', () => {
    fs.mkdirSync(path.join(tmp, 'data'));
    const file = path.join(tmp, 'data', 'mcp-approvals.json');
    fs.writeFileSync(file, 'not json');
    const a = new McpApprovals(path.join(tmp, 'data'));
    expect(() => a.isApproved('/x', 'h')).toThrow(`Keel's MCP approvals ${file} are not valid JSON`);
    expect(() => a.approve('/x', 'h')).toThrow(/fix or delete the file/);
    expect(fs.readFileSync(file, 'utf8')).toBe('not json');
  });
});
