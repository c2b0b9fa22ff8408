// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FilesPutBack, RewindPlanView, TurnView } from '../../../../main/contract.js';
import { setSlice } from '../../stores/store.js';
import { fakeApi, resetStores, sessionView } from '../../test/fakeApi.js';
import { fakeLayout } from '../../test/layout.js';
import { PutBackNotice } from '../changes/PutBackNotice.js';
import { Actions } from '../topbar/Actions.js';
import { Composer } from './Composer.js';
import { Transcript } from './Transcript.js';

afterEach(cleanup);
beforeEach(() => {
  resetStores();
  fakeLayout();
});

const turns: TurnView[] = [
  { seq: 1, status: 'done', words: 'Fix the parser', notes: [], parts: [] },
  { seq: 2, status: 'done', words: 'And the lexer', notes: [], parts: [] },
];
const plan = (o: Partial<RewindPlanView> = {}): RewindPlanView => ({ seq: 1, canRewindFiles: true, putBack: [], left: [], large: [], ...o });

function setup(plans: (seq?: number) => RewindPlanView, result: FilesPutBack = { restored: ['src/parser.ts', 'src/new.ts'], left: ['notes.md'], large: [] }) {
  const calls: unknown[][] = [];
  const view = sessionView({ turns });
  fakeApi({
    openSession: async () => view,
    rewindPlan: async (id: number, seq?: number) => {
      calls.push(['rewindPlan', id, seq]);
      return plans(seq);
    },
    rewind: async (...args: unknown[]) => {
      calls.push(['rewind', ...args]);
      return args[2] ? result : undefined;
    },
    editAndResend: async (...args: unknown[]) => {
      calls.push(['editAndResend', ...args]);
      return args[3] ? result : undefined;
    },
    undo: async (...args: unknown[]) => {
      calls.push(['undo', ...args]);
      return args[1] ? result : undefined;
    },
  });
  setSlice('transcript', { sessionId: 1, view });
  render(
    <>
      <Actions />
      <PutBackNotice />
      <Transcript />
      <Composer />
    </>,
  );
  return calls;
}

const changed = plan({
  putBack: [{ path: 'src/parser.ts', how: 'restored' }, { path: 'src/new.ts', how: 'removed' }, { path: 'old.ts', how: 'recreated' }],
  left: ['notes.md'],
});

describe('the rewind dialog: conversation and files, or conversation only', () => {
  it('lists the files that go back before anything happens, with files as the default, and names the ones left after', async () => {
    const calls = setup(() => changed);
    fireEvent.click(screen.getByTestId('turn-1-rewind'));
    const files = await screen.findByTestId('rewind-files');
    expect(calls).toEqual([['rewindPlan', 1, 1]]);
    expect(within(files).getAllByTestId('rewind-file').map((li) => li.textContent)).toEqual([
      'src/parser.ts (its content as before)', 'src/new.ts (removed: created in these turns)', 'old.ts (back: deleted in these turns)',
    ]);
    expect(within(files).getByTestId('rewind-left').textContent).toBe('notes.md');
    expect((screen.getByTestId('rewind-with-files') as HTMLInputElement).checked).toBe(true);
    expect(screen.getByTestId('history-confirm-text').textContent).toContain('The files listed below go back as they were before turn 1.');
    await act(async () => fireEvent.click(screen.getByTestId('turn-1-confirm-button')));
    expect(calls.at(-1)).toEqual(['rewind', 1, 1, true]);
    const notice = await screen.findByTestId('put-back-notice');
    expect(within(notice).getByTestId('put-back-restored').textContent).toBe('Put back 2 files: src/parser.ts, src/new.ts.');
    expect(within(notice).getByTestId('put-back-left').textContent).toBe(" Left as they are, changed from outside after the session's last change to them: notes.md.");
    fireEvent.click(screen.getByTestId('put-back-dismiss'));
    expect(screen.queryByTestId('put-back-notice')).toBeNull();
  });

  it('takes back the conversation only when the person chooses so: files stay, and no notice', async () => {
    const calls = setup(() => changed);
    fireEvent.click(screen.getByTestId('turn-2-edit'));
    await screen.findByTestId('rewind-files');
    fireEvent.click(screen.getByTestId('rewind-conversation-only'));
    expect(screen.getByTestId('history-confirm-text').textContent).toContain('Files on disk stay as they are.');
    fireEvent.change(screen.getByTestId('turn-2-edit-input'), { target: { value: 'And the tests' } });
    await act(async () => fireEvent.click(screen.getByTestId('turn-2-confirm-button')));
    expect(calls.at(-1)).toEqual(['editAndResend', 1, 2, 'And the tests', false]);
    expect(screen.queryByTestId('put-back-notice')).toBeNull();
  });

  it('waits for the plan before it can be confirmed', async () => {
    let answer: (p: RewindPlanView) => void = () => {};
    const calls = setup(() => changed);
    fakeApi({ openSession: async () => sessionView({ turns }), rewindPlan: () => new Promise<RewindPlanView>((r) => (answer = r)) });
    fireEvent.click(screen.getByTestId('turn-1-rewind'));
    expect(screen.getByTestId('rewind-files-loading')).toBeTruthy();
    expect((screen.getByTestId('turn-1-confirm-button') as HTMLButtonElement).disabled).toBe(true);
    await act(async () => answer(changed));
    expect((screen.getByTestId('turn-1-confirm-button') as HTMLButtonElement).disabled).toBe(false);
    expect(calls).toEqual([]);
  });

  it('a session whose files were not recorded says its rewinds are conversation only, and offers no files', async () => {
    const why = 'Turn 1 cannot be rewound with files: its files were not recorded (the session began before Keel recorded files, or recording it failed). Rewind the conversation only.';
    const calls = setup(() => plan({ canRewindFiles: false, unavailable: why }));
    fireEvent.click(screen.getByTestId('turn-1-rewind'));
    expect((await screen.findByTestId('rewind-files-unavailable')).textContent).toBe(`Conversation only. ${why}`);
    expect(screen.queryByTestId('rewind-with-files')).toBeNull();
    await act(async () => fireEvent.click(screen.getByTestId('turn-1-confirm-button')));
    expect(calls.at(-1)).toEqual(['rewind', 1, 1, false]);
  });
});

describe('Undo', () => {
  it('acts at once where its turn changed no file', async () => {
    const calls = setup(() => plan({ seq: 2 }));
    await act(async () => fireEvent.click(screen.getByTestId('undo-button')));
    expect(calls).toEqual([['rewindPlan', 1, undefined], ['undo', 1, false]]);
    expect(screen.queryByTestId('undo-confirm')).toBeNull();
  });

  it('asks first where its turn changed files, listing them, and undoes with them', async () => {
    const calls = setup(() => plan({ seq: 2, putBack: [{ path: 'src/lexer.ts', how: 'restored' }] }), { restored: ['src/lexer.ts'], left: [], large: [] });
    await act(async () => fireEvent.click(screen.getByTestId('undo-button')));
    const dialog = screen.getByTestId('undo-confirm');
    expect(within(dialog).getByTestId('history-confirm-text').textContent).toBe(
      'Turn 2 is taken back with its words and replies: the model no longer sees them, and the next request reads again from there. The files listed below go back as they were before turn 2.',
    );
    expect(within(dialog).getAllByTestId('rewind-file').map((li) => li.getAttribute('data-path'))).toEqual(['src/lexer.ts']);
    expect(calls).toEqual([['rewindPlan', 1, undefined]]);
    await act(async () => fireEvent.click(screen.getByTestId('undo-confirm-button')));
    expect(calls.at(-1)).toEqual(['undo', 1, true]);
    expect((await screen.findByTestId('put-back-restored')).textContent).toBe('Put back one file: src/lexer.ts.');
  });
});
