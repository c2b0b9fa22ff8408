// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChangedFile, ChangesView as View } from '../../../../main/contract.js';
import { setSlice, useKeel } from '../../stores/store.js';
import { dispatch } from '../../events.js';
import { fakeApi, resetStores, sessionView } from '../../test/fakeApi.js';
import { ChangesView } from './ChangesView.js';

afterEach(cleanup);
beforeEach(resetStores);

const hunkA = '@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three';
const hunkB = '@@ -17,3 +17,3 @@\n seventeen\n-eighteen\n+EIGHTEEN\n nineteen';
const file = (o: Partial<ChangedFile>): ChangedFile => ({ path: 'a.txt', kind: 'modified', binary: false, large: false, link: false, diff: '', hunks: [], ...o });
const edited = file({ path: 'src/a.ts', hunks: [hunkA, hunkB], diff: `${hunkA}\n${hunkB}` });
const created = file({ path: 'new.txt', kind: 'created', hunks: ['@@ -0,0 +1,1 @@\n+fresh'] });
const view = (o: Partial<View> = {}): View => ({
  sessionId: 1, turns: [{ seq: 1, words: 'Fix the parser' }, { seq: 3, words: 'Add a test' }], files: [edited, created], ...o,
});

function setup(answers: Partial<Record<'changes' | 'revertFile' | 'revertHunk', (...args: never[]) => Promise<View>>> = {}) {
  const calls: unknown[][] = [];
  fakeApi({
    openSession: async () => sessionView(),
    changes: async (...args: unknown[]) => {
      calls.push(['changes', ...args]);
      return answers.changes ? answers.changes() : view(args[1] === 3 ? { since: 3, files: [created] } : {});
    },
    revertFile: async (...args: unknown[]) => {
      calls.push(['revertFile', ...args]);
      return answers.revertFile ? answers.revertFile() : view({ files: [created] });
    },
    revertHunk: async (...args: unknown[]) => {
      calls.push(['revertHunk', ...args]);
      if (answers.revertHunk) return answers.revertHunk();
      return view({ files: [file({ ...edited, hunks: [hunkB], diff: hunkB }), created] });
    },
  });
  setSlice('transcript', { sessionId: 1 });
  render(<ChangesView />);
  return calls;
}

describe('the Changes tab', () => {
  it('lists each changed file with its diff, added and removed lines highlighted', async () => {
    setup();
    await waitFor(() => expect(screen.getAllByTestId('changed-file')).toHaveLength(2));
    expect(screen.getByTestId('changes-count').textContent).toBe('2 files changed since the session began.');
    const [a, b] = screen.getAllByTestId('changed-file');
    expect(a.getAttribute('data-path')).toBe('src/a.ts');
    expect(within(a).getByTestId('change-kind').textContent).toBe('modified');
    expect(within(b).getByTestId('change-kind').textContent).toBe('created');
    // A created file is one hunk, the whole file: it goes back with Revert file only.
    expect(within(b).queryByTestId('revert-hunk')).toBeNull();
    expect(within(b).getByTestId('revert-file')).toBeTruthy();
    const hunks = within(a).getAllByTestId('hunk');
    expect(hunks).toHaveLength(2);
    const lines = [...hunks[0].querySelectorAll('.line')].map((l) => [l.textContent, l.className.trim()]);
    expect(lines).toEqual([[' one', 'line'], ['-two', 'line diff-del'], ['+TWO', 'line diff-add'], [' three', 'line']]);
    expect(hunks[0].textContent).toContain('@@ -1,3 +1,3 @@');
  });

  it('shows the changes since a turn chosen in the picker', async () => {
    const calls = setup();
    const picker = (await screen.findByTestId('changes-since')) as HTMLSelectElement;
    await waitFor(() => expect(picker.options).toHaveLength(3));
    expect([...picker.options].map((o) => o.textContent)).toEqual(['the session began', 'turn 1 began: Fix the parser', 'turn 3 began: Add a test']);
    await act(async () => fireEvent.change(picker, { target: { value: '3' } }));
    await waitFor(() => expect(screen.getAllByTestId('changed-file').map((f) => f.getAttribute('data-path'))).toEqual(['new.txt']));
    expect(calls).toEqual([['changes', 1, undefined], ['changes', 1, 3]]);
    expect(screen.getByTestId('changes-count').textContent).toBe('1 file changed since turn 3 began.');
  });

  it('Revert hunk sends that hunk as shown and shows main’s new view; Revert file sends the file and the base', async () => {
    const calls = setup();
    const a = await screen.findByText('src/a.ts').then((el) => el.closest('[data-testid="changed-file"]') as HTMLElement);
    await act(async () => fireEvent.click(within(a).getAllByTestId('revert-hunk')[1]));
    expect(calls.at(-1)).toEqual(['revertHunk', 1, 'src/a.ts', 1, hunkB, undefined]);
    await waitFor(() => expect(within(screen.getAllByTestId('changed-file')[0]).getAllByTestId('hunk')).toHaveLength(1));
    await act(async () => fireEvent.click(within(screen.getAllByTestId('changed-file')[0]).getByTestId('revert-file')));
    expect(calls.at(-1)).toEqual(['revertFile', 1, 'src/a.ts', undefined]);
    await waitFor(() => expect(screen.getAllByTestId('changed-file').map((f) => f.getAttribute('data-path'))).toEqual(['new.txt']));
  });

  it('shows main’s refusal of a revert in the view, and reads the files again', async () => {
    const refusal = '/ws/src/a.ts changed since its diff was shown (hunk 1 reads otherwise now); nothing was taken back. Look at its diff again.';
    const calls = setup({ revertHunk: async () => Promise.reject(new Error(refusal)) });
    await waitFor(() => expect(screen.getAllByTestId('revert-hunk').length).toBeGreaterThan(0));
    await act(async () => fireEvent.click(screen.getAllByTestId('revert-hunk')[0]));
    expect((await screen.findByTestId('changes-error')).textContent).toContain(refusal);
    expect(calls.map((c) => c[0])).toEqual(['changes', 'revertHunk', 'changes']);
  });

  it('says why where the files were not recorded (conversation only), and names binary or large files without a diff', async () => {
    setup({ changes: async () => view({ files: [], turns: [], unavailable: 'This session cannot be rewound with files: its files were not recorded. Rewind the conversation only.' }) });
    expect((await screen.findByTestId('changes-unavailable')).textContent).toMatch(/not recorded/);
    cleanup();
    resetStores();
    setup({ changes: async () => view({ files: [file({ path: 'big.bin', large: true, binary: true })] }) });
    const big = await screen.findByTestId('changed-file');
    expect(within(big).getByTestId('no-diff').textContent).toMatch(/Over the size limit/);
    expect((within(big).getByTestId('revert-file') as HTMLButtonElement).disabled).toBe(true);
  });

  it('offers no revert while the model is answering', async () => {
    setup();
    act(() => setSlice('transcript', { running: true }));
    await waitFor(() => expect(screen.getAllByTestId('changed-file')).toHaveLength(2));
    for (const b of [...screen.getAllByTestId('revert-hunk'), ...screen.getAllByTestId('revert-file')]) expect((b as HTMLButtonElement).disabled).toBe(true);
  });

  it('follows the session: a turn that ends reads the files again while the tab is shown', async () => {
    const calls = setup();
    await waitFor(() => expect(calls).toHaveLength(1));
    useKeel.getState().ui.setTab('changes');
    await act(async () => dispatch({ type: 'turn-ended', sessionId: 1 }));
    await act(async () => dispatch({ type: 'turn-ended', sessionId: 2 }));
    expect(calls.filter((c) => c[0] === 'changes')).toHaveLength(2);
  });
});
