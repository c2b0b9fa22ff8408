// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HookFileView, HooksView } from '../../../../main/contract.js';
import { setSlice, useKeel } from '../../stores/store.js';
import { fakeApi, resetStores, sessionView } from '../../test/fakeApi.js';
import { TopBar } from '../topbar/TopBar.js';
import { HooksPanel } from './HooksPanel.js';

afterEach(cleanup);
beforeEach(resetStores);

const workspace = '/code/ledger-api';
const places = ['/data/settings.json', `${workspace}/.keel/settings.json`];
const person: HookFileView = {
  source: 'person', file: '/data/settings.json', hash: 'p'.repeat(64), approved: true, needsApproval: false,
  hooks: [{ event: 'Stop', command: 'npm test', timeoutS: 600 }], rules: [],
};
const waiting: HookFileView = {
  source: 'workspace', file: `${workspace}/.keel/settings.json`, hash: 'ab12cd34'.repeat(8), approved: false, needsApproval: true,
  hooks: [{ event: 'PostToolUse', matcher: 'Edit|Write', command: 'npx tsc --noEmit' }, { event: 'PreToolUse', matcher: '', command: './guard.sh' }], rules: [],
};
/** Claude Code's files of the same workspace: each waits on its own. */
const claude: HookFileView = {
  source: 'workspace', file: `${workspace}/.claude/settings.json`, hash: 'cd'.repeat(32), approved: false, needsApproval: true, hooks: [],
  rules: [
    { action: 'deny', written: 'Read(./.env)', keel: ['deny read .env', 'deny read .env/**'] },
    { action: 'allow', written: 'WebFetch(domain:example.com)', keel: [], ignored: "Keel has no tool that Claude Code's WebFetch stands for" },
  ],
};
const claudeLocal: HookFileView = {
  source: 'workspace', file: `${workspace}/.claude/settings.local.json`, hash: 'ef'.repeat(32), approved: false, needsApproval: true,
  hooks: [{ event: 'PostToolUse', matcher: 'Edit', command: 'npx prettier --write' }], rules: [],
};

/** Main as the fake plays it: `view` before an approval, `approved` after one main accepted (`approve` may refuse). */
function setUp(view: HooksView, approved = view, approve: (workspace: string, hash: string) => Promise<void> = async () => undefined) {
  const calls: unknown[][] = [];
  let current = view;
  fakeApi({
    hooks: async (w) => {
      calls.push(['hooks', w]);
      return current;
    },
    approveHooksFile: async (w, hash) => {
      calls.push(['approveHooksFile', w, hash]);
      await approve(w, hash);
      current = approved;
    },
  });
  setSlice('transcript', { sessionId: 1, view: sessionView() });
  render(<><TopBar /><HooksPanel /></>);
  return calls;
}

describe('the hooks in the Servers tab', () => {
  it("lists each file with its source and state; a workspace's waits, and Approve sends the hash it showed", async () => {
    const calls = setUp(
      { workspace, places, files: [person, waiting] },
      { workspace, places, files: [person, { ...waiting, approved: true, needsApproval: false }] },
    );
    await waitFor(() => expect(screen.getAllByTestId('hook-file')).toHaveLength(2));
    const [mine, theirs] = screen.getAllByTestId('hook-file');
    expect(mine.dataset.source).toBe('person');
    expect(mine.textContent).toContain('/data/settings.json');
    expect(within(mine).getByTestId('hook-state').textContent).toBe('yours');
    expect(within(mine).getByTestId('hook-entry').textContent).toBe('Stop: npm test (timeout 600 s)');
    expect(within(mine).queryByTestId('hooks-approve')).toBeNull();
    expect(theirs.textContent).toContain(`${workspace}/.keel/settings.json`);
    expect(theirs.textContent).toContain('workspace file');
    expect(within(theirs).getByTestId('hook-state').textContent).toBe('not approved');
    expect(theirs.textContent).toContain('sha ab12cd34');
    expect(within(theirs).getAllByTestId('hook-entry').map((e) => e.textContent)).toEqual(['PostToolUse [Edit|Write]: npx tsc --noEmit', 'PreToolUse [*]: ./guard.sh']);
    expect(screen.getByTestId('servers-tab').textContent).toContain('1 to see');

    fireEvent.click(within(theirs).getByTestId('hooks-approve'));
    await waitFor(() => expect(calls).toContainEqual(['approveHooksFile', waiting.file, 'ab12cd34'.repeat(8)]));
    await waitFor(() => expect(within(screen.getAllByTestId('hook-file')[1]).getByTestId('hook-state').textContent).toBe('approved'));
    expect(screen.queryByTestId('hooks-approve')).toBeNull();
    expect(screen.getByTestId('servers-tab').textContent).not.toContain('to see');
  });

  it("keeps the file waiting when main refuses the approval (the file changed since it was shown), and shows main's words", async () => {
    const calls = setUp({ workspace, places, files: [waiting] }, undefined, async () => {
      throw new Error(`${waiting.file} changed since it was shown (sha ab12cd34, now 99999999); look at its hooks again before approving.`);
    });
    fireEvent.click(await screen.findByTestId('hooks-approve'));
    await waitFor(() => expect(calls.filter((c) => c[0] === 'approveHooksFile')).toHaveLength(1));
    await waitFor(() => expect(useKeel.getState().errors.items.map((e) => e.message)).toEqual([expect.stringContaining('changed since it was shown')]));
    expect(screen.getByTestId('hook-state').textContent).toBe('not approved');
    expect(screen.getByTestId('hooks-approve')).toBeTruthy();
  });

  it("names a file's problem, and where hooks go when there are none", async () => {
    setUp({ workspace, places, files: [{ ...waiting, hash: 'x', needsApproval: false, problem: `${waiting.file} is not valid JSON; its hooks were not loaded.`, hooks: [] }] });
    expect((await screen.findByTestId('hook-problem')).textContent).toBe(`${waiting.file} is not valid JSON; its hooks were not loaded.`);
    expect(screen.getByTestId('hook-state').textContent).toBe('not loaded');
    expect(screen.queryByTestId('hooks-approve')).toBeNull();
    cleanup();
    resetStores();
    setUp({ workspace, places, files: [] });
    expect((await screen.findByTestId('hooks-none')).textContent).toContain(`No hooks or permission rules. Add them to /data/settings.json or ${workspace}/.keel/settings.json`);
  });

  it("shows Claude Code's files with their rules (an ignored one with why), and approves only the file whose button was pressed", async () => {
    const calls = setUp(
      { workspace, places, files: [claude, claudeLocal] },
      { workspace, places, files: [claude, { ...claudeLocal, approved: true, needsApproval: false }] },
    );
    await waitFor(() => expect(screen.getAllByTestId('hook-file')).toHaveLength(2));
    const [settings, local] = screen.getAllByTestId('hook-file');
    expect(within(settings).getAllByTestId('rule-entry').map((e) => e.textContent)).toEqual([
      'deny Read(./.env) → deny read .env, deny read .env/**',
      "allow WebFetch(domain:example.com) ignored: Keel has no tool that Claude Code's WebFetch stands for",
    ]);
    expect(within(settings).getByTestId('hook-state').textContent).toBe('not approved');
    expect(screen.getByTestId('servers-tab').textContent).toContain('2 to see');

    fireEvent.click(within(local).getByTestId('hooks-approve'));
    await waitFor(() => expect(calls).toContainEqual(['approveHooksFile', claudeLocal.file, claudeLocal.hash]));
    expect(calls.filter((c) => c[0] === 'approveHooksFile')).toHaveLength(1);
    await waitFor(() => expect(within(screen.getAllByTestId('hook-file')[1]).getByTestId('hook-state').textContent).toBe('approved'));
    expect(within(screen.getAllByTestId('hook-file')[0]).getByTestId('hook-state').textContent).toBe('not approved');
    expect(screen.getAllByTestId('hooks-approve')).toHaveLength(1);
  });
});
