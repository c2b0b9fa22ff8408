// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { McpServersView, McpServerView } from '../../../../main/contract.js';
import { dispatch } from '../../events.js';
import { setSlice } from '../../stores/store.js';
import { fakeApi, resetStores, sessionView } from '../../test/fakeApi.js';
import { TopBar } from '../topbar/TopBar.js';
import { ServersView } from './ServersView.js';

afterEach(cleanup);
beforeEach(resetStores);

const server = (o: Partial<McpServerView>): McpServerView => ({
  name: 'everything', scope: 'user', file: '/home/me/.keel/mcp.json', launch: 'npx -y @modelcontextprotocol/server-everything', state: 'connected',
  via: 'stdio', trusted: false, tools: [], leftOut: [], ...o,
});

function setUp(views: McpServersView[]) {
  const calls: unknown[][] = [];
  let n = 0;
  fakeApi({
    mcpServers: async (workspace, sessionId) => {
      calls.push(['mcpServers', workspace, sessionId]);
      return views[Math.min(n++, views.length - 1)];
    },
    approveMcpFile: async (...args) => { calls.push(['approveMcpFile', ...args]); },
    restartMcpServer: async (...args) => { calls.push(['restartMcpServer', ...args]); },
    trustMcpServer: async (...args) => { calls.push(['trustMcpServer', ...args]); },
    createSession: async (o) => { calls.push(['createSession', o]); return { ...sessionView().summary, id: 2 }; },
  });
  setSlice('transcript', { sessionId: 1, view: sessionView() });
  render(<><TopBar /><ServersView /></>);
  return calls;
}

const workspace = '/code/ledger-api';

describe('the Servers panel', () => {
  it("shows a workspace file's servers waiting for approval, and approves the file by the hash it showed", async () => {
    const calls = setUp([{
      workspace,
      files: [{ file: `${workspace}/.mcp.json`, scope: 'workspace', exists: true, hash: 'ab12cd34'.repeat(8), needsApproval: true, servers: ['db'], problems: [] }],
      servers: [server({ name: 'db', scope: 'workspace', file: `${workspace}/.mcp.json`, launch: 'node tools/db-server.js', state: 'not approved' })],
    }]);
    await waitFor(() => expect(screen.getByTestId('mcp-approval').textContent).toContain('db: node tools/db-server.js'));
    expect(screen.getByTestId('mcp-approval').textContent).toContain('sha ab12cd34');
    expect(screen.queryByTestId('mcp-server')).toBeNull();
    expect(screen.getByTestId('servers-tab').textContent).toContain('1 to see');
    fireEvent.click(screen.getByTestId('mcp-approve'));
    await waitFor(() => expect(calls).toContainEqual(['approveMcpFile', workspace, 'ab12cd34'.repeat(8)]));
  });

  it('the approval says what runs outside the sandbox before a package server starts, and why a line is refused', async () => {
    setUp([{
      workspace,
      files: [{ file: `${workspace}/.mcp.json`, scope: 'workspace', exists: true, hash: 'ab12cd34'.repeat(8), needsApproval: true, servers: ['mem', 'evil'], problems: [] }],
      servers: [
        server({ name: 'mem', scope: 'workspace', file: `${workspace}/.mcp.json`, state: 'not approved', fetches: 'pkg, with npm, once, before its first start; outside the sandbox, with network, Keel runs: npm install -- pkg' }),
        server({ name: 'evil', scope: 'workspace', file: `${workspace}/.mcp.json`, state: 'not approved', lastError: 'MCP server evil is not started: the package "--ignore-scripts=false" begins with "-"' }),
      ],
    }]);
    await waitFor(() => expect(screen.getByTestId('mcp-fetches').textContent).toBe('outside the sandbox fetches pkg, with npm, once, before its first start; outside the sandbox, with network, Keel runs: npm install -- pkg'));
    expect(screen.getByTestId('mcp-refused').textContent).toContain('is not started: the package "--ignore-scripts=false" begins with "-"');
  });

  it('shows each server with its state, tools, last error and waiting tools; restart and trust reach main', async () => {
    const calls = setUp([{
      workspace,
      files: [{ file: '/home/me/.keel/mcp.json', scope: 'user', exists: true, hash: 'x', needsApproval: false, servers: ['everything', 'broken'], problems: [] }],
      servers: [
        server({ name: 'broken', state: 'failed', launch: 'keel-missing', lastError: 'keel-missing: spawn keel-missing ENOENT' }),
        server({
          tools: [{ name: 'mcp__everything__echo', tool: 'echo', description: 'Echoes back the input string', readOnly: true }],
          waiting: [{ name: 'mcp__everything__grown', change: 'new' }],
        }),
      ],
    }]);
    await waitFor(() => expect(screen.getAllByTestId('mcp-server')).toHaveLength(2));
    const [broken, everything] = screen.getAllByTestId('mcp-server');
    expect(broken.querySelector('[data-testid="mcp-state"]')?.textContent).toBe('failed');
    expect(broken.querySelector('[data-testid="mcp-error"]')?.textContent).toBe('keel-missing: spawn keel-missing ENOENT');
    expect(everything.textContent).toContain('mcp__everything__echo');
    expect(everything.textContent).toContain('read-only');
    expect(everything.querySelector('[data-testid="mcp-waiting"]')?.textContent).toContain('mcp__everything__grown (new)');
    expect(screen.getByTestId('servers-tab').textContent).toContain('1 for the next session');
    fireEvent.click(broken.querySelector('[data-testid="mcp-restart"]')!);
    fireEvent.click(everything.querySelector('[data-testid="mcp-trust"]')!);
    await waitFor(() => expect(calls).toContainEqual(['restartMcpServer', workspace, 'broken']));
    await waitFor(() => expect(calls).toContainEqual(['trustMcpServer', workspace, 'everything', true]));
    // The waiting tools: a new session like this one gets them.
    const summary = sessionView().summary;
    fireEvent.click(everything.querySelector('[data-testid="mcp-new-session"]')!);
    await waitFor(() => expect(calls).toContainEqual(['createSession', { workspace: summary.workspace, kind: summary.kind, mode: summary.mode }]));
  });

  it('reads the servers again when main says they changed', async () => {
    const calls = setUp([
      { workspace, files: [], servers: [server({ state: 'connecting' })] },
      { workspace, files: [], servers: [server({ state: 'connected' })] },
    ]);
    await waitFor(() => expect(screen.getByTestId('mcp-state').textContent).toBe('connecting'));
    dispatch({ type: 'mcp-changed', workspace: '/elsewhere' });
    dispatch({ type: 'mcp-changed', workspace });
    await waitFor(() => expect(screen.getByTestId('mcp-state').textContent).toBe('connected'));
    expect(calls.filter((c) => c[0] === 'mcpServers')).toEqual([['mcpServers', workspace, 1], ['mcpServers', workspace, 1]]);
  });
});
