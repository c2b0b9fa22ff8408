// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionView, TurnView } from '../../../../main/contract.js';
import { turnNumber, whatGoes } from '../../lib/historyText.js';
import { setSlice } from '../../stores/store.js';
import { fakeApi, resetStores, sessionView } from '../../test/fakeApi.js';
import { fakeLayout } from '../../test/layout.js';
import { Composer } from './Composer.js';
import { Transcript } from './Transcript.js';

afterEach(cleanup);
beforeEach(() => {
  resetStores();
  fakeLayout();
});

const tool = (n: number) => ({ type: 'tool' as const, tool: { number: n, id: `#000${n}`, name: 'read', args: {}, text: `[#000${n}]` } });
const turns: TurnView[] = [
  { seq: 1, status: 'done', words: 'Read the parser', notes: [], parts: [tool(1), { type: 'text', text: 'Read.' }] },
  { seq: 2, status: 'done', words: 'Now fix it', notes: [], parts: [tool(2), tool(3)] },
  { seq: 4, status: 'done', words: 'And test it', notes: [], parts: [tool(4)] },
];

function setup(view: SessionView = sessionView({ turns })) {
  const calls: unknown[][] = [];
  const api = fakeApi({
    openSession: async () => view,
    rewind: async (...args: unknown[]) => void calls.push(['rewind', ...args]),
    editAndResend: async (...args: unknown[]) => void calls.push(['editAndResend', ...args]),
    deleteTurn: async (...args: unknown[]) => void calls.push(['deleteTurn', ...args]),
  });
  setSlice('transcript', { sessionId: 1, view });
  render(
    <>
      <Transcript />
      <Composer />
    </>,
  );
  return { api, calls };
}

describe('history actions on each message', () => {
  it('says what a rewind takes back, and only on confirmation rewinds; the words come back into the message box', async () => {
    const { calls } = setup();
    fireEvent.click(screen.getByTestId('turn-2-rewind'));
    const confirm = screen.getByTestId('turn-2-confirm');
    expect(within(confirm).getByTestId('history-confirm-text').textContent).toBe(
      'Turn 2 and the turn after it are taken back with 3 results (#0002, #0003, #0004): the model no longer sees them, '
      + 'and the next request reads again from there. Files on disk stay as they are. Your message goes back into the message box.',
    );
    expect(calls).toEqual([]);
    fireEvent.click(screen.getByTestId('turn-2-cancel'));
    expect(screen.queryByTestId('turn-2-confirm')).toBeNull();
    fireEvent.click(screen.getByTestId('turn-2-rewind'));
    // Those turns changed no file (the fake's plan): nothing to choose.
    await screen.findByTestId('rewind-files-none');
    await act(async () => fireEvent.click(screen.getByTestId('turn-2-confirm-button')));
    expect(calls).toEqual([['rewind', 1, 2, false]]);
    await waitFor(() => expect((screen.getByTestId('message-input') as HTMLTextAreaElement).value).toBe('Now fix it'));
  });

  it('edits a message in place and resends it in its place', async () => {
    const { calls } = setup();
    fireEvent.click(screen.getByTestId('turn-1-edit'));
    const input = screen.getByTestId('turn-1-edit-input') as HTMLTextAreaElement;
    expect(input.value).toBe('Read the parser');
    expect(screen.getByTestId('history-confirm-text').textContent).toMatch(/^Turn 1 and the 2 turns after it are taken back with 4 results \(#0001, #0002, #0003, #0004\).*Your edited message is then sent in its place\.$/);
    fireEvent.change(input, { target: { value: '' } });
    expect((screen.getByTestId('turn-1-confirm-button') as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(input, { target: { value: 'Read the lexer instead' } });
    await screen.findByTestId('rewind-files-none');
    await act(async () => fireEvent.click(screen.getByTestId('turn-1-confirm-button')));
    expect(calls).toEqual([['editAndResend', 1, 1, 'Read the lexer instead', false]]);
  });

  it('deletes one turn after saying the later ones stay', async () => {
    const { calls } = setup();
    fireEvent.click(screen.getByTestId('turn-2-delete'));
    expect(screen.getByTestId('history-confirm-text').textContent).toMatch(/^Turn 2 is taken back with 2 results \(#0002, #0003\).*The turns after it stay\.$/);
    await act(async () => fireEvent.click(screen.getByTestId('turn-2-confirm-button')));
    expect(calls).toEqual([['deleteTurn', 1, 2]]);
  });

  it('offers no action while the model is answering, nor on words not yet stored', () => {
    setup(sessionView({ turns, running: true }));
    act(() => setSlice('transcript', { running: true, pending: 'more' }));
    expect(screen.queryByTestId('turn-1-rewind')).toBeNull();
    expect(screen.queryByTestId('turn-5-rewind')).toBeNull();
  });
});

describe('whatGoes', () => {
  it('numbers turns as the person counts them after a rewind: taken-back turns have no number, later ones follow on', () => {
    const after: TurnView[] = [
      { seq: 1, status: 'done', words: 'a', notes: [], parts: [] },
      { seq: 2, status: 'undone', words: 'b', notes: [], parts: [] },
      { seq: 3, status: 'undone', words: 'c', notes: [], parts: [] },
      { seq: 4, status: 'done', words: 'd', notes: [], parts: [] },
    ];
    expect(after.map((t) => turnNumber(after, t.seq))).toEqual([1, undefined, undefined, 2]);
    expect(whatGoes(after, 4, 'undo')).toMatch(/^Turn 2 is taken back/);
  });

  it('counts turns and results from the view, and shortens a long list of ids', () => {
    const many: TurnView[] = [{ seq: 3, status: 'done', words: 'x', notes: [], parts: [1, 2, 3, 4, 5, 6].map(tool) }];
    // Turn numbers are places among the messages the history keeps, not the store's seq (3 here).
    expect(whatGoes(many, 3, 'rewind')).toMatch(/^Turn 1 is taken back with 6 results \(#0001 … #0006\)/);
    expect(whatGoes([{ seq: 1, status: 'done', words: 'x', notes: [], parts: [] }], 1, 'delete')).toMatch(/^Turn 1 is taken back with its words and replies:/);
    expect(whatGoes([{ seq: 1, status: 'done', words: 'x', notes: [], parts: [tool(7)] }], 1, 'edit')).toMatch(/^Turn 1 is taken back with one result \(#0007\)/);
  });
});
