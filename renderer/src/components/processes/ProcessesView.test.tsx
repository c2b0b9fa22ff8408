// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ShellSummary } from '../../../../main/contract.js';
import { dispatch } from '../../events.js';
import { setSlice } from '../../stores/store.js';
import { fakeApi, resetStores, sessionView } from '../../test/fakeApi.js';
import { TopBar } from '../topbar/TopBar.js';
import { ProcessesView } from './ProcessesView.js';

afterEach(cleanup);
beforeEach(resetStores);

const shell = (o: Partial<ShellSummary>): ShellSummary => ({
  id: 'bg1', command: 'npm run dev', pid: 4321, startedAt: Date.parse('2026-12-06T10:00:00Z'), state: 'running', status: '[shell bg1 is running]', bytes: 12, dropped: 0, ...o,
});

/** Main as the fake plays it: `list` until a Stop, then bg1 stopped. */
function setUp(list: ShellSummary[]) {
  const calls: unknown[][] = [];
  let current = list;
  const api = fakeApi({
    shells: async (id) => {
      calls.push(['shells', id]);
      return current;
    },
    shellOutput: async (id, shellId) => {
      calls.push(['shellOutput', id, shellId]);
      const s = current.find((x) => x.id === shellId)!;
      return { shell: s, text: `output of ${shellId}\n`, dropped: shellId === 'bg2' ? 900 : 0 };
    },
    stopShell: async (id, shellId) => {
      calls.push(['stopShell', id, shellId]);
      current = current.map((s) => (s.id === shellId ? { ...s, state: 'stopped', status: `[shell ${shellId} was stopped: the person stopped it]` } : s));
      return `Shell ${shellId} was stopped.`;
    },
  });
  setSlice('transcript', { sessionId: 1, view: sessionView() });
  render(<><TopBar /><ProcessesView /></>);
  return { calls, api, set: (next: ShellSummary[]) => (current = next) };
}

describe('the Processes tab', () => {
  it('says so when the session has no background commands', async () => {
    setUp([]);
    await waitFor(() => expect(screen.getByTestId('processes-none').textContent).toMatch(/^No background commands in this session\./));
    expect(screen.queryByTestId('processes-running')).toBeNull();
  });

  it("lists the shells with their state, shows the newest one's output, and Stop stops a running one", async () => {
    const { calls } = setUp([shell({}), shell({ id: 'bg2', command: 'make', state: 'exited', code: 0, status: '[shell bg2 exited with code 0]' })]);
    await waitFor(() => expect(screen.getAllByTestId('process')).toHaveLength(2));
    const [first, second] = screen.getAllByTestId('process');
    expect(within(first).getByTestId('process-state').textContent).toBe('running');
    expect(first.textContent).toContain('npm run dev');
    expect(first.textContent).toContain('pid 4321');
    expect(within(second).getByTestId('process-state').textContent).toBe('exited');
    expect(within(second).queryByTestId('process-stop')).toBeNull();
    expect(screen.getByTestId('processes-running').textContent).toBe('1 running');
    // The newest is shown first, with what came before it counted.
    await waitFor(() => expect(screen.getByTestId('process-text').textContent).toBe('output of bg2\n'));
    expect(screen.getByTestId('process-status').textContent).toBe('[shell bg2 exited with code 0]');
    expect(screen.getByTestId('process-dropped').textContent).toBe('900 earlier bytes are not shown.');

    fireEvent.click(first);
    await waitFor(() => expect(screen.getByTestId('process-text').textContent).toBe('output of bg1\n'));
    expect(screen.getByTestId('process-status').textContent).toBe('[shell bg1 is running]');
    fireEvent.click(within(first).getByTestId('process-stop'));
    await waitFor(() => expect(within(screen.getAllByTestId('process')[0]).getByTestId('process-state').textContent).toBe('stopped'));
    expect(calls).toContainEqual(['stopShell', 1, 'bg1']);
    expect(screen.getByTestId('processes-said').textContent).toBe('Shell bg1 was stopped.');
    await waitFor(() => expect(screen.getByTestId('process-status').textContent).toBe('[shell bg1 was stopped: the person stopped it]'));
    expect(screen.queryByTestId('process-stop')).toBeNull();
    expect(screen.queryByTestId('processes-running')).toBeNull();
  });

  it("reads the list again when main says the open session's shells changed, and not for another session", async () => {
    const { calls, set } = setUp([]);
    await waitFor(() => expect(screen.getByTestId('processes-none')).toBeTruthy());
    const reads = () => calls.filter((c) => c[0] === 'shells').length;
    const before = reads();
    set([shell({})]);
    dispatch({ type: 'shells-changed', sessionId: 2 });
    await new Promise((r) => setTimeout(r, 20));
    expect(reads()).toBe(before);
    dispatch({ type: 'shells-changed', sessionId: 1 });
    await waitFor(() => expect(screen.getAllByTestId('process')).toHaveLength(1));
    expect(screen.getByTestId('processes-running').textContent).toBe('1 running');
  });
});
