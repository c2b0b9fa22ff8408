// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ActionToPrice, McpServerView, PriceView, TurnView } from '../../../../main/contract.js';
import { setSlice, useKeel } from '../../stores/store.js';
import { fakeApi, priceView, resetStores, sessionView } from '../../test/fakeApi.js';
import { fakeLayout } from '../../test/layout.js';
import { ServersView } from '../servers/ServersView.js';
import { Actions } from '../topbar/Actions.js';
import { ModelPicker } from '../topbar/ModelPicker.js';
import { Transcript } from '../transcript/Transcript.js';

afterEach(cleanup);
beforeEach(() => {
  resetStores();
  fakeLayout();
});

const turns: TurnView[] = [
  { seq: 1, status: 'done', words: 'Read the parser', notes: [], parts: [{ type: 'text', text: 'Read.' }] },
  { seq: 2, status: 'done', words: 'Now fix it', notes: [], parts: [{ type: 'text', text: 'Fixed.' }] },
];
/** Above a 10 s limit: what a compaction of a long session costs on a laptop. */
const dear = (o: Partial<PriceView> = {}) => priceView({ tokens: 5120, seconds: 12, exact: false, text: 're-reads about 5120 tokens, about 12 s on this machine', askAboveSeconds: 10, asks: true, ...o });

/** A session of two turns whose every action costs `price`; what the app asked main, in order. */
function setUp(price: (action: ActionToPrice) => Promise<PriceView>, limit?: number) {
  const calls: unknown[][] = [];
  const log = (name: string) => async (...args: unknown[]) => void calls.push([name, ...args]);
  fakeApi({
    openSession: async () => sessionView({ turns }),
    price: async (id, action) => (calls.push(['price', id, action]), price(action)),
    compact: log('compact'), undo: log('undo'), regenerate: log('regenerate'), rewind: log('rewind'), deleteTurn: log('deleteTurn'),
    editAndResend: log('editAndResend'), switchModel: log('switchModel'), createSession: async (o) => (calls.push(['createSession', o]), sessionView().summary),
  });
  setSlice('transcript', { sessionId: 1, view: sessionView({ turns }) });
  setSlice('model', { app: { modelsFolder: '/models', dataFolder: '/data', askAboveSeconds: limit } });
  return calls;
}
const acted = (calls: unknown[][]) => calls.filter((c) => c[0] !== 'price').map((c) => c[0]);

describe('the top bar: Compact, Undo and Regenerate say what they re-read, and ask above the limit', () => {
  it('puts the price in the tooltip once the pointer is on the button, and below the limit acts at once', async () => {
    const calls = setUp(async () => priceView());
    render(<Actions />);
    const compact = screen.getByTestId('compact-button');
    expect(compact.title).toBe('Compact now: replace the history with a summary (one deliberate cache break)');
    fireEvent.mouseEnter(compact);
    await waitFor(() => expect(compact.title).toBe('Compact now: replace the history with a summary (one deliberate cache break). This re-reads 12 tokens, about 0.1 s on this machine.'));
    expect(calls).toEqual([['price', 1, { kind: 'compact' }]]);
    fireEvent.click(compact);
    await waitFor(() => expect(acted(calls)).toEqual(['compact']));
    // The price already had is not asked again; Undo and Regenerate price the last turn's take-back.
    expect(calls.filter((c) => c[0] === 'price')).toHaveLength(1);
    fireEvent.focus(screen.getByTestId('regenerate-button'));
    await waitFor(() => expect(calls).toContainEqual(['price', 1, { kind: 'take back' }]));
    expect(screen.queryByTestId('price-ask')).toBeNull();
  });

  it('above the limit asks first: Escape cancels and nothing is done; Enter goes on', async () => {
    const calls = setUp(async () => dear(), 10);
    render(<Actions />);
    await act(async () => fireEvent.click(screen.getByTestId('compact-button')));
    const ask = await screen.findByTestId('price-ask');
    expect(within(ask).getByTestId('price-ask-text').textContent).toBe('That re-reads about 5120 tokens, about 12 s on this machine: more than your limit of 10 s. Go on?');
    expect(document.activeElement).toBe(within(ask).getByTestId('price-ask-go'));
    fireEvent.keyDown(within(ask).getByTestId('price-ask-go'), { key: 'Escape' });
    expect(screen.queryByTestId('price-ask')).toBeNull();
    expect(acted(calls)).toEqual([]);

    await act(async () => fireEvent.click(screen.getByTestId('regenerate-button')));
    fireEvent.keyDown(await screen.findByTestId('price-ask-go'), { key: 'Enter' });
    await waitFor(() => expect(acted(calls)).toEqual(['regenerate']));
    expect(screen.queryByTestId('price-ask')).toBeNull();
  });

  it('Undo without files to choose asks above the limit; Cancel leaves the session as it was', async () => {
    const calls = setUp(async () => dear(), 10);
    render(<Actions />);
    await act(async () => fireEvent.click(screen.getByTestId('undo-button')));
    fireEvent.click(await screen.findByTestId('price-ask-cancel'));
    expect(screen.queryByTestId('price-ask')).toBeNull();
    expect(acted(calls)).toEqual([]);
    await act(async () => fireEvent.click(screen.getByTestId('undo-button')));
    fireEvent.click(await screen.findByTestId('price-ask-go'));
    await waitFor(() => expect(acted(calls)).toEqual(['undo']));
  });

  it('where main cannot price the action, asks only if the person set a limit', async () => {
    const calls = setUp(async () => { throw new Error('No model is loaded: choose a GGUF file or a server first.'); }, 5);
    render(<Actions />);
    await act(async () => fireEvent.click(screen.getByTestId('compact-button')));
    expect((await screen.findByTestId('price-ask-text')).textContent).toBe(
      'Keel could not work out what this re-reads (No model is loaded: choose a GGUF file or a server first.), and you asked to be asked above 5 s. Go on?',
    );
    expect(acted(calls)).toEqual([]);
    act(() => setSlice('model', { app: { modelsFolder: '/models', dataFolder: '/data' } }));
    expect(screen.queryByTestId('price-ask')).toBeNull();
    await act(async () => fireEvent.click(screen.getByTestId('compact-button')));
    await waitFor(() => expect(acted(calls)).toEqual(['compact']));
  });
});

describe('a message\'s Rewind, Edit and Delete: the price in the confirmation, asked once more above the limit', () => {
  it('shows what a rewind re-reads in its card before anything is taken back', async () => {
    const calls = setUp(async (a) => priceView({ action: a.kind, tokens: 310, text: 're-reads 310 tokens, about 0.9 s on this machine' }));
    render(<Transcript />);
    fireEvent.click(screen.getByTestId('turn-2-rewind'));
    const card = screen.getByTestId('turn-2-confirm');
    expect(within(card).getByTestId('price-line').textContent).toBe('Working out what this re-reads…');
    await waitFor(() => expect(within(card).getByTestId('price-line').textContent).toBe('This re-reads 310 tokens, about 0.9 s on this machine.'));
    expect(calls).toEqual([['price', 1, { kind: 'take back', turn: 2 }]]);
    fireEvent.click(screen.getByTestId('turn-2-cancel'));
    fireEvent.click(screen.getByTestId('turn-1-delete'));
    await waitFor(() => expect(calls).toContainEqual(['price', 1, { kind: 'delete', turn: 1 }]));
    await act(async () => fireEvent.click(screen.getByTestId('turn-1-confirm-button')));
    await waitFor(() => expect(acted(calls)).toEqual(['deleteTurn']));
  });

  it('above the limit the card says so, and its confirmation asks before the rewind; Escape keeps everything', async () => {
    const calls = setUp(async () => dear(), 10);
    render(<Transcript />);
    fireEvent.click(screen.getByTestId('turn-1-rewind'));
    await waitFor(() => expect(screen.getByTestId('price-line').textContent).toBe('This re-reads about 5120 tokens, about 12 s on this machine: more than your limit of 10 s.'));
    await screen.findByTestId('rewind-files-none');
    await act(async () => fireEvent.click(screen.getByTestId('turn-1-confirm-button')));
    const ask = within(screen.getByTestId('turn-1-confirm')).getByTestId('price-ask');
    // The question stands in for the card's buttons until answered.
    expect(screen.queryByTestId('turn-1-confirm-button')).toBeNull();
    fireEvent.keyDown(ask, { key: 'Escape' });
    expect(acted(calls)).toEqual([]);
    expect(screen.getByTestId('turn-1-confirm-button')).toBeTruthy();
    await act(async () => fireEvent.click(screen.getByTestId('turn-1-confirm-button')));
    fireEvent.keyDown(screen.getByTestId('price-ask'), { key: 'Enter' });
    await waitFor(() => expect(calls).toContainEqual(['rewind', 1, 1, false]));
  });

  it('an edit sent with Ctrl+Enter above the limit waits for the answer, and sends the words as they are then', async () => {
    const calls = setUp(async () => dear(), 10);
    render(<Transcript />);
    fireEvent.click(screen.getByTestId('turn-2-edit'));
    const input = screen.getByTestId('turn-2-edit-input');
    fireEvent.change(input, { target: { value: 'Fix it differently' } });
    await screen.findByTestId('rewind-files-none');
    await act(async () => fireEvent.keyDown(input, { key: 'Enter', ctrlKey: true }));
    await screen.findByTestId('price-ask');
    expect(acted(calls)).toEqual([]);
    // Changing the words withdraws the question: Go on never sends words the person did not see priced.
    fireEvent.change(input, { target: { value: 'Fix it a third way' } });
    expect(screen.queryByTestId('price-ask')).toBeNull();
    await act(async () => fireEvent.keyDown(input, { key: 'Enter', ctrlKey: true }));
    fireEvent.click(await screen.findByTestId('price-ask-go'));
    await waitFor(() => expect(calls).toContainEqual(['editAndResend', 1, 2, 'Fix it a third way', false]));
  });
});

describe('a model switch and a new session with other tools', () => {
  it('the picker says what switching re-reads, and above the limit asks before it switches', async () => {
    const files = [{ path: '/models/big.gguf', name: 'big.gguf', sizeBytes: 1000 }];
    const calls = setUp(async (a) => dear({ action: a.kind }), 10);
    fakeApi({
      openSession: async () => sessionView({ turns }), listModels: async () => files,
      price: async (id, action) => (calls.push(['price', id, action]), dear({ action: action.kind })),
      switchModel: async (...args) => void calls.push(['switchModel', ...args]),
    });
    render(<ModelPicker />);
    await waitFor(() => expect(screen.getByTestId('price-line').textContent).toBe('Switching re-reads about 5120 tokens, about 12 s on this machine: more than your limit of 10 s.'));
    expect(calls).toEqual([['price', 1, { kind: 'switch model' }]]);
    await act(async () => fireEvent.click(await screen.findByTestId('model-option')));
    fireEvent.click(await screen.findByTestId('price-ask-cancel'));
    expect(acted(calls)).toEqual([]);
    await act(async () => fireEvent.click(screen.getByTestId('model-option')));
    fireEvent.click(await screen.findByTestId('price-ask-go'));
    await waitFor(() => expect(calls).toContainEqual(['switchModel', 1, '/models/big.gguf']));
  });

  it('"Start a new session with them" says what its first message reads, and asks above the limit', async () => {
    const calls = setUp(async () => dear({ action: 'new tool list', text: 're-reads about 2100 tokens, about 12 s on this machine' }), 10);
    const waiting: McpServerView = {
      name: 'memory', scope: 'user', file: '/home/me/.keel/mcp.json', launch: 'npx -y @modelcontextprotocol/server-memory', state: 'connected', via: 'stdio',
      trusted: false, tools: [], leftOut: [], waiting: [{ name: 'mcp__memory__create_entities', change: 'new' }],
    };
    fakeApi({
      openSession: async () => sessionView({ turns }),
      mcpServers: async (workspace) => ({ workspace, files: [], servers: [waiting] }),
      price: async (id, action) => (calls.push(['price', id, action]), dear({ action: 'new tool list', text: 're-reads about 2100 tokens, about 12 s on this machine' })),
      createSession: async (o) => (calls.push(['createSession', o]), sessionView().summary),
    });
    await useKeel.getState().transcript.load(1);
    await useKeel.getState().servers.load('/code/ledger-api', 1);
    render(<ServersView />);
    await waitFor(() => expect(screen.getByTestId('mcp-new-session-price').textContent).toBe(
      'Its first message re-reads about 2100 tokens, about 12 s on this machine: more than your limit of 10 s.',
    ));
    expect(calls).toContainEqual(['price', 1, { kind: 'new tool list' }]);
    await act(async () => fireEvent.click(screen.getByTestId('mcp-new-session')));
    fireEvent.keyDown(await screen.findByTestId('price-ask'), { key: 'Escape' });
    expect(acted(calls)).toEqual([]);
    await act(async () => fireEvent.click(screen.getByTestId('mcp-new-session')));
    fireEvent.keyDown(await screen.findByTestId('price-ask'), { key: 'Enter' });
    await waitFor(() => expect(acted(calls)).toEqual(['createSession']));
  });
});
