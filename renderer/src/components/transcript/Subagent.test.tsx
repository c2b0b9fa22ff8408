// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionView, ToolView } from '../../../../main/contract.js';
import { dispatch } from '../../events.js';
import { setSlice, useKeel } from '../../stores/store.js';
import { fakeApi, requestRow, resetStores, sessionView, summary } from '../../test/fakeApi.js';
import { fakeLayout } from '../../test/layout.js';
import { Transcript } from './Transcript.js';

afterEach(cleanup);
beforeEach(resetStores);

const CHILD = 7;
const task: ToolView = {
  number: 1, id: '#0001', name: 'task', args: { description: 'Find the config', prompt: 'Where is the config?' },
  text: '[#0001]\nIt is in config.json.', subagent: { sessionId: CHILD },
};
const child = (o: Partial<SessionView> = {}) => sessionView({
  summary: summary({ id: CHILD, title: 'Find the config' }),
  turns: [{ seq: 1, status: 'done', words: 'Where is the config?', notes: [], parts: [
    { type: 'tool', tool: { number: 1, id: '#0001', name: 'read', args: { path: 'config.json' }, text: '[#0001 config.json lines 1-1 of 1 sha 00000000]\n1: {}' } },
    { type: 'text', text: 'It is in config.json.' },
  ] }],
  ...o,
});

describe("a task call's card", () => {
  it('shows what the subagent is for, and opens its transcript and cache rows inside the card, read-only', async () => {
    fakeLayout();
    const asked: number[] = [];
    fakeApi({
      openSession: async (id: number) => (asked.push(id), child()),
      requests: async (id: number) => (id === CHILD ? [requestRow({ id: 31 }), requestRow({ id: 32 })] : []),
    });
    setSlice('transcript', { sessionId: 1, view: sessionView({ turns: [{ seq: 1, status: 'done', words: 'Find it', notes: [], parts: [{ type: 'tool', tool: task }] }] }) });
    render(<Transcript />);
    expect(screen.getByTestId('subagent-description').textContent).toBe('Find the config');
    expect(screen.queryByTestId('subagent-transcript')).toBeNull();

    const open = screen.getByRole('button', { name: 'Open transcript' });
    expect(open.getAttribute('aria-expanded')).toBe('false');
    await act(async () => fireEvent.click(open));
    const nested = await screen.findByTestId('subagent-transcript');
    expect(asked).toEqual([CHILD]);
    expect(within(nested).getByTestId('subagent-words').textContent).toBe('Where is the config?');
    expect(within(nested).getByTestId('subagent-reply').textContent).toContain('It is in config.json.');
    // Its calls keep their own ids, apart from the parent's #0001.
    expect(within(nested).getByTestId(`subagent-${CHILD}-tool-result-0001`).textContent).toContain('config.json');
    expect(within(nested).getAllByTestId(/^cache-row-/)).toHaveLength(2);
    // Another session's turns: nothing here takes them back or sends them again.
    expect(within(nested).queryAllByRole('button', { name: /Rewind|Edit|Delete|Undo/ })).toHaveLength(0);
    expect(screen.getByRole('button', { name: 'Close transcript' }).getAttribute('aria-expanded')).toBe('true');

    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Close transcript' })));
    expect(screen.queryByTestId('subagent-transcript')).toBeNull();
  });

  it('shows a subagent at work before its card has a result, with its state, and follows its events while open', async () => {
    fakeLayout();
    let view = child({ running: true, turns: [{ seq: 1, status: 'open', words: 'Where is the config?', notes: [], parts: [] }] });
    fakeApi({ openSession: async () => view });
    setSlice('transcript', { sessionId: 1, running: true, view: sessionView({ running: true, turns: [{ seq: 1, status: 'open', words: 'Find it', notes: [], parts: [] }] }) });
    render(<Transcript />);

    act(() => dispatch({ type: 'subagent', sessionId: 1, childId: CHILD, state: 'waiting' }));
    expect(screen.getByTestId('subagent-state').textContent).toBe('waiting for a place');
    await waitFor(() => expect(screen.getByTestId('subagent-description').textContent).toBe('Find the config'));
    act(() => dispatch({ type: 'subagent', sessionId: 1, childId: CHILD, state: 'running' }));
    expect(screen.getByTestId('subagent-state').textContent).toBe('running');
    // Another session's subagent shows nowhere here.
    act(() => dispatch({ type: 'subagent', sessionId: 2, childId: 8, state: 'running' }));
    expect(screen.getAllByTestId('subagent')).toHaveLength(1);

    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Open transcript' })));
    await screen.findByTestId('subagent-words');
    expect(screen.queryByTestId('subagent-reply')).toBeNull();
    view = child();
    act(() => dispatch({ type: 'text', sessionId: CHILD, delta: 'It is' }));
    await waitFor(() => expect(screen.getByTestId('subagent-reply').textContent).toContain('It is in config.json.'));

    // Its task card, once the call has its result, holds it from then on.
    act(() => dispatch({ type: 'subagent', sessionId: 1, childId: CHILD, state: 'answered' }));
    expect(useKeel.getState().subagents.known[CHILD]?.state).toBe('answered');
    expect(screen.queryByTestId(`subagent-pending-${CHILD}`)).toBeNull();
    act(() => useKeel.getState().transcript.onTool(task));
    expect(screen.getByTestId('subagent-state').textContent).toBe('answered');
    expect(screen.getByTestId('subagent-transcript')).toBeTruthy();
  });
});
