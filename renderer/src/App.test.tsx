// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionView } from '../../main/contract.js';
import { App } from './App.js';
import { fakeApi, requestRow, resetStores, sessionView, summary } from './test/fakeApi.js';
import { fakeLayout } from './test/layout.js';
import { useKeel } from './stores/store.js';

afterEach(cleanup);
beforeEach(() => {
  resetStores();
  fakeLayout();
});

const view: SessionView = sessionView({
  turns: [
    {
      seq: 1,
      status: 'done',
      words: 'Why does page 1 skip a row?',
      notes: [{ kind: 'date', text: 'Today is 2026-11-30.' }],
      parts: [
        { type: 'tool', tool: { number: 18, id: '#0012', name: 'read', args: { path: 'src/app.ts' }, text: '[#0012 src/app.ts lines 1-2 of 2 sha 1c9e04ab]\n1: a\n2: b' } },
        { type: 'tool', tool: { number: 19, id: '#0013', name: 'grep', args: { pattern: 'x' }, text: '[#0013] Same result as #0012.' } },
        { type: 'text', text: 'Yes: `pageWindow` (#0012) adds one.\n\n```ts\nconst a = 1;\n```' },
      ],
    },
  ],
});

function api(overrides = {}) {
  return fakeApi({
    listSessions: async () => [summary(), summary({ id: 2, kind: 'chat', workspace: '', title: 'Regex question' })],
    openSession: async () => view,
    requests: async () => [requestRow({ id: 1 }), requestRow({ id: 2, cause: 'model switched', reusedTokens: 0, newTokens: 1000 })],
    ...overrides,
  });
}

async function openFirstSession() {
  fireEvent.click(within(await screen.findByTestId('session-item-1')).getByText('Fix paging'));
  await screen.findByTestId('turn-1');
}

describe('App', () => {
  it('lists sessions by workspace with their kinds, and opens one', async () => {
    api();
    render(<App />);
    const agent = await screen.findByTestId('session-item-1');
    expect(agent.dataset['kind']).toBe('agent');
    expect(screen.getByTestId('session-item-2').dataset['kind']).toBe('chat');
    expect(screen.getByText('Chats without a folder')).toBeTruthy();
    await openFirstSession();
    expect(screen.getByTestId('turn-1').textContent).toContain('Why does page 1 skip a row?');
    expect(screen.getByTestId('tool-result-0012').textContent).toContain('[#0012 src/app.ts lines 1-2 of 2 sha 1c9e04ab]');
    const reply = screen.getByTestId('turn-1-part-2');
    expect(within(reply).getByTestId('id-link').textContent).toBe('#0012');
    expect(reply.querySelector('code.hljs')).toBeTruthy();
  });

  it('sends with Ctrl+Enter and shows text as it streams', async () => {
    const sent: unknown[][] = [];
    let endTurn = () => undefined as void;
    // Like main's: send resolves when the turn ends.
    const keel = api({ send: (...args: unknown[]) => (sent.push(args), new Promise<void>((resolve) => (endTurn = resolve))) });
    render(<App />);
    await openFirstSession();
    const input = screen.getByTestId('message-input');
    fireEvent.change(input, { target: { value: 'Go on' } });
    fireEvent.keyDown(input, { key: 'Enter', ctrlKey: true });
    expect(sent).toEqual([[1, 'Go on']]);
    act(() => {
      keel.emit({ type: 'text', sessionId: 1, delta: 'Working on ' });
      keel.emit({ type: 'text', sessionId: 1, delta: 'it, see #0013' });
      keel.emit({ type: 'text', sessionId: 2, delta: 'another session' });
    });
    await waitFor(() => expect(screen.getByTestId('transcript').textContent).toContain('Working on it, see #0013'));
    expect(screen.getByTestId('transcript').textContent).not.toContain('another session');
    expect((screen.getByTestId('stop-button') as HTMLButtonElement).disabled).toBe(false);
    await act(async () => endTurn());
    await waitFor(() => expect((screen.getByTestId('stop-button') as HTMLButtonElement).disabled).toBe(true));
  });

  it('with the sessions list collapsed (a narrow window), the empty view offers to open it', async () => {
    api();
    render(<App />);
    await screen.findByTestId('session-item-1');
    act(() => useKeel.getState().ui.setSidebar(false));
    expect(screen.getByTestId('no-session').textContent).toContain('Open the sessions list');
    fireEvent.click(screen.getByTestId('open-sessions-list'));
    expect(useKeel.getState().ui.sidebarOpen).toBe(true);
    expect(screen.getByTestId('no-session').textContent).toContain('Choose a session on the left');
  });

  it('sends with Enter, keeps Shift+Enter a new line, brings the last message back with Up, and queues one sent during a turn', async () => {
    const sent: unknown[][] = [];
    let endTurn = () => undefined as void;
    api({ send: (...args: unknown[]) => (sent.push(args), new Promise<void>((resolve) => (endTurn = resolve))) });
    localStorage.removeItem('keel.sendWithEnter');
    render(<App />);
    await openFirstSession();
    const input = screen.getByTestId('message-input') as HTMLTextAreaElement;
    expect(screen.getByTestId('composer-hint').textContent).toContain('Enter sends · Shift+Enter new line');
    fireEvent.change(input, { target: { value: 'Two\nlines' } });
    fireEvent.keyDown(input, { key: 'Enter', shiftKey: true });
    expect(sent).toEqual([]);
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(sent).toEqual([[1, 'Two\nlines']]);
    expect(input.value).toBe('');
    // During the turn: queued, shown, and sent when it ends.
    fireEvent.change(input, { target: { value: 'And then this' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(screen.getByTestId('queued-message').textContent).toContain('And then this');
    expect(sent).toHaveLength(1);
    await act(async () => endTurn());
    await waitFor(() => expect(sent).toEqual([[1, 'Two\nlines'], [1, 'And then this']]));
    expect(screen.queryByTestId('queued-message')).toBeNull();
    fireEvent.keyDown(input, { key: 'ArrowUp' });
    expect(input.value).toBe('And then this');
    // Switched: Enter is a new line, Ctrl+Enter sends; kept for the next window.
    await act(async () => endTurn());
    fireEvent.click(screen.getByTestId('send-key-switch'));
    expect(localStorage.getItem('keel.sendWithEnter')).toBe('false');
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(sent).toHaveLength(2);
    fireEvent.keyDown(input, { key: 'Enter', ctrlKey: true });
    expect(sent).toHaveLength(3);
    localStorage.removeItem('keel.sendWithEnter');
  });

  it('shows a failed call and an error event as readable messages', async () => {
    const keel = api({ send: async () => Promise.reject(new Error('No model is loaded: choose a GGUF file first.')) });
    render(<App />);
    await openFirstSession();
    fireEvent.change(screen.getByTestId('message-input'), { target: { value: 'hi' } });
    fireEvent.click(screen.getByTestId('send-button'));
    expect((await screen.findByTestId('error-banner')).textContent).toContain('No model is loaded: choose a GGUF file first.');
    act(() => keel.emit({ type: 'error', sessionId: 1, message: 'The model stopped: context full.' }));
    await waitFor(() => expect(screen.getAllByTestId('error-banner')).toHaveLength(2));
  });

  it('shows the cache view with a row per request', async () => {
    api();
    render(<App />);
    await openFirstSession();
    fireEvent.click(screen.getByTestId('cache-tab'));
    expect(await screen.findByTestId('cache-row-2')).toBeTruthy();
    expect(screen.getByTestId('cache-break-2').textContent).toContain('model switched');
  });

  it('offers a model file first when none is loaded or remembered, or the recommended download', async () => {
    let downloads = 0;
    api({ getState: async () => ({ modelsFolder: '/models', dataFolder: '/data' }), downloadModel: async () => { downloads++; return '/models/m.gguf'; } });
    render(<App />);
    expect(await screen.findByTestId('first-run')).toBeTruthy();
    expect(screen.getByText(/needs a network connection/)).toBeTruthy();
    fireEvent.click(screen.getByTestId('download-model-button'));
    await waitFor(() => expect(downloads).toBe(1));
  });

  it('says plainly in the status bar and the sidebar when commands cannot be sandboxed', async () => {
    const text = 'No sandbox for commands: bubblewrap (bwrap) not installed. Every command that is not read-only asks, in every mode.';
    api({ getState: async () => ({ modelsFolder: '/models', dataFolder: '/data', loadedModel: '/models/tiny.gguf', sandbox: { on: false, text } }) });
    render(<App />);
    const tag = await screen.findByTestId('status-sandbox');
    expect(tag.getAttribute('title')).toBe(text);
    expect(screen.getByTestId('sidebar-sandbox').textContent).toBe('Commands not sandboxed');
    cleanup();
    resetStores();
    api({ getState: async () => ({ modelsFolder: '/models', dataFolder: '/data', loadedModel: '/models/tiny.gguf', sandbox: { on: true, text: 'Commands run in a bubblewrap sandbox.' } }) });
    render(<App />);
    expect((await screen.findByTestId('sidebar-sandbox')).textContent).toBe('Commands sandboxed');
    expect(screen.queryByTestId('status-sandbox')).toBeNull();
  });

  it('opens the inspector with Ctrl+I and focuses its id field', async () => {
    api();
    render(<App />);
    await openFirstSession();
    fireEvent.keyDown(window, { key: 'i', ctrlKey: true });
    const field = await screen.findByTestId('inspector-id-input');
    await waitFor(() => expect(document.activeElement).toBe(field));
  });

  it('offers no session actions without a session: no mode, Recall disabled, the chip asks for a model', async () => {
    api({ getState: async () => ({ modelsFolder: '/models', dataFolder: '/data' }), listSessions: async () => [] });
    render(<App />);
    await screen.findByTestId('first-run');
    await waitFor(() => expect(screen.getByTestId('model-chip').textContent).toBe('No model — choose one'));
    expect(screen.queryByTestId('mode-selector')).toBeNull();
    for (const id of ['compact-button', 'undo-button', 'regenerate-button', 'stop-button']) expect(screen.queryByTestId(id)).toBeNull();
    expect((screen.getByTestId('inspector-button') as HTMLButtonElement).disabled).toBe(true);
    fireEvent.keyDown(window, { key: 'i', ctrlKey: true });
    expect(screen.queryByTestId('inspector-panel')).toBeNull();
  });

  it('shows every top bar control with a session open, each named for assistive technology', async () => {
    api();
    render(<App />);
    await openFirstSession();
    expect(screen.getByTestId('mode-selector')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Compact now' })).toBe(screen.getByTestId('compact-button'));
    expect(screen.getByRole('button', { name: 'Recall' })).toBe(screen.getByTestId('inspector-button'));
    expect((screen.getByTestId('inspector-button') as HTMLButtonElement).disabled).toBe(false);
    expect((screen.getByTestId('undo-button') as HTMLButtonElement).disabled).toBe(false);
  });

  it('shows an approval with its diff and real path, and sends the answer', async () => {
    const answers: unknown[][] = [];
    const keel = api({ answerApproval: async (...args: unknown[]) => void answers.push(args) });
    render(<App />);
    await openFirstSession();
    act(() =>
      keel.emit({
        type: 'approval',
        approval: { approvalId: 5, sessionId: 1, tool: 'edit', args: { path: 'src/app.ts' }, paths: ['/code/ledger-api/src/app.ts'], preview: '@@ -1 +1 @@\n-a\n+b', reason: 'Mode ask: every edit waits for you.' },
      }),
    );
    const card = await screen.findByTestId('approval-card');
    expect(within(card).getByTestId('approval-path').textContent).toContain('/code/ledger-api/src/app.ts');
    expect(within(card).getByTestId('approval-preview').textContent).toContain('+b');
    expect(screen.getByTestId('session-needs-approval-1')).toBeTruthy();
    fireEvent.click(within(card).getByTestId('approval-allow-session'));
    await waitFor(() => expect(screen.queryByTestId('approval-card')).toBeNull());
    expect(answers).toEqual([[5, 'allow-session']]);
  });

  it('creates a session from the form and deletes one after confirming', async () => {
    const created: unknown[] = [];
    const deleted: unknown[] = [];
    api({ createSession: async (o: unknown) => (created.push(o), summary({ id: 9 })), deleteSession: async (id: number) => void deleted.push(id) });
    render(<App />);
    fireEvent.click(await screen.findByTestId('new-session-button'));
    fireEvent.change(screen.getByTestId('new-session-workspace'), { target: { value: '/code/new' } });
    fireEvent.change(screen.getByTestId('new-session-kind'), { target: { value: 'chat' } });
    fireEvent.change(screen.getByTestId('new-session-mode'), { target: { value: 'plan' } });
    fireEvent.click(screen.getByTestId('new-session-submit'));
    await waitFor(() => expect(created).toEqual([{ workspace: '/code/new', kind: 'chat', mode: 'plan', title: undefined }]));
    fireEvent.click(screen.getByTestId('session-delete-2'));
    expect(deleted).toEqual([]);
    fireEvent.click(screen.getByTestId('session-delete-confirm-2'));
    await waitFor(() => expect(deleted).toEqual([2]));
  });
});
