// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HookFileView, ProjectFilesView, ProjectFileView } from '../../../../main/contract.js';
import { setSlice } from '../../stores/store.js';
import { fakeApi, resetStores, sessionView } from '../../test/fakeApi.js';
import { TopBar } from '../topbar/TopBar.js';
import { ServersView } from './ServersView.js';

afterEach(cleanup);
beforeEach(resetStores);

const workspace = '/code/ledger-api';
const settings = `${workspace}/.claude/settings.json`;
const rows: ProjectFileView[] = [
  { path: `${workspace}/CLAUDE.md`, kind: 'instructions', source: 'workspace', state: 'read' },
  { path: '/home/me/.claude/CLAUDE.md', kind: 'instructions', source: 'person', state: 'read' },
  { path: settings, kind: 'settings', source: 'workspace', state: 'waiting' },
  { path: `${workspace}/.mcp.json`, kind: 'mcp', source: 'workspace', state: 'approved' },
  { path: `${workspace}/.claude/commands/review\u202e.md`, kind: 'command', source: 'workspace', state: 'problem', problem: 'its front matter (--- on line 1) has no closing --- line' },
  { path: `${workspace}/.claude/skills/empty`, kind: 'skill', source: 'workspace', state: 'problem', problem: `${workspace}/.claude/skills/empty: it has no SKILL.md` },
];
const hookFile: HookFileView = {
  source: 'workspace', file: settings, hash: 'cd'.repeat(32), approved: false, needsApproval: true,
  hooks: [{ event: 'PostToolUse', matcher: 'Edit', command: 'npx prettier --write' }], rules: [],
};

/** Main as the fake plays it: the settings file waits until approveHooksFile, then both views say it is approved. */
function setUp() {
  const calls: string[] = [];
  let approved = false;
  fakeApi({
    projectFiles: async (w): Promise<ProjectFilesView> => {
      calls.push(`projectFiles ${w}`);
      return { workspace: w, files: rows.map((r) => (approved && r.path === settings ? { ...r, state: 'approved' } : r)) };
    },
    hooks: async (w) => ({ workspace: w, places: [settings], files: [{ ...hookFile, approved, needsApproval: !approved }] }),
    approveHooksFile: async () => {
      approved = true;
    },
  });
  setSlice('transcript', { sessionId: 1, view: sessionView() });
  render(<><TopBar /><ServersView /></>);
  return calls;
}

describe('the project files in the Servers tab', () => {
  it('lists each file with its kind and state, a waiting one with where it is approved, a broken one with why', async () => {
    const calls = setUp();
    await waitFor(() => expect(screen.getAllByTestId('project-file')).toHaveLength(6));
    expect(calls[0]).toBe(`projectFiles ${workspace}`);
    const [claude, mine, waiting, mcp, command, skill] = screen.getAllByTestId('project-file');
    expect(claude.textContent).toBe('CLAUDE.md instructions read');
    expect(mine.textContent).toBe('/home/me/.claude/CLAUDE.md instructions read');
    expect(within(waiting).getByTestId('project-file-state').textContent).toBe('waiting for approval');
    expect(within(waiting).getByTestId('project-file-approve').textContent).toBe(' Approve it under Hooks and permission rules above.');
    expect(mcp.textContent).toBe('.mcp.json MCP servers approved');
    // A file name a cloned repository chose shows its hidden characters named.
    expect(command.textContent).toContain('.claude/commands/review⟨U+202E⟩.md command not used');
    expect(within(command).getByTestId('project-file-problem').textContent).toBe('its front matter (--- on line 1) has no closing --- line');
    expect(skill.dataset.state).toBe('problem');
    expect(within(skill).getByTestId('project-file-problem').textContent).toBe(`${workspace}/.claude/skills/empty: it has no SKILL.md`);
    expect(screen.queryAllByTestId('project-file-approve')).toHaveLength(1);
  });

  it('reads the list again after an approval above, so the approved file says so', async () => {
    setUp();
    fireEvent.click(await screen.findByTestId('hooks-approve'));
    await waitFor(() => expect(within(screen.getAllByTestId('project-file')[2]).getByTestId('project-file-state').textContent).toBe('approved'));
    expect(screen.queryByTestId('project-file-approve')).toBeNull();
  });

  it('says where Keel looked when the workspace has no project files', async () => {
    fakeApi();
    setSlice('transcript', { sessionId: 1, view: sessionView() });
    render(<><TopBar /><ServersView /></>);
    expect((await screen.findByTestId('project-files-none')).textContent).toBe(`Keel found none of AGENTS.md, CLAUDE.md, .claude/, .keel/ or .mcp.json in ${workspace}.`);
  });
});
