// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setSlice } from '../../stores/store.js';
import { fakeApi, recallView, resetStores } from '../../test/fakeApi.js';
import { Inspector } from './Inspector.js';

afterEach(cleanup);
beforeEach(resetStores);

/** A 4,500-line stored body, served 2,000 lines a page as recall() does. */
function pagedApi() {
  const body = Array.from({ length: 4500 }, (_, i) => `body line ${i + 1}`);
  const asked: number[] = [];
  fakeApi({
    recall: async (_session, id, offset = 1) => {
      asked.push(offset);
      if (id !== '#0020') throw new Error(`No stored result ${id} in session 1.`);
      return recallView({ id, tool: 'bash', args: { command: 'npm test' }, pathGiven: undefined, pathResolved: undefined, fileHash: undefined, inRequest: false, elided: { line: 101, count: 4300 }, offset, lines: body.slice(offset - 1, offset - 1 + 2000), totalLines: body.length });
    },
  });
  setSlice('transcript', { sessionId: 1 });
  return asked;
}

describe('Inspector', () => {
  it('opens an id typed into its field: metadata first, then the body', async () => {
    pagedApi();
    render(<Inspector />);
    fireEvent.change(screen.getByTestId('inspector-id-input'), { target: { value: '20' } });
    fireEvent.click(screen.getByTestId('inspector-open'));
    await waitFor(() => expect(screen.getByTestId('inspector-range').textContent).toBe('lines 1-2,000 of 4,500'));
    const meta = screen.getByTestId('inspector-meta');
    expect(meta.textContent).toContain('bash');
    expect(meta.textContent).toContain('{"command":"npm test"}');
    expect(meta.textContent).toMatch(/In the request being built\s*No/);
    // The stored result was capped when inserted: the kind says so, not "full".
    expect(meta.textContent).toMatch(/Kind\s*capped: the model got the head and tail, 4,300 lines elided/);
    expect(meta.compareDocumentPosition(screen.getByTestId('inspector-body')) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it('pages through the stored body 2,000 lines at a time', async () => {
    const asked = pagedApi();
    render(<Inspector />);
    fireEvent.change(screen.getByTestId('inspector-id-input'), { target: { value: '#0020' } });
    fireEvent.submit(screen.getByTestId('inspector-id-input'));
    await waitFor(() => expect(screen.getByTestId('inspector-body').children).toHaveLength(2000));
    expect((screen.getByTestId('inspector-prev') as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByTestId('inspector-next'));
    await waitFor(() => expect(screen.getByTestId('inspector-range').textContent).toBe('lines 2,001-4,000 of 4,500'));
    fireEvent.click(screen.getByTestId('inspector-next'));
    await waitFor(() => expect(screen.getByTestId('inspector-range').textContent).toBe('lines 4,001-4,500 of 4,500'));
    expect(screen.getByTestId('inspector-body').firstElementChild?.textContent).toBe('body line 4001');
    expect((screen.getByTestId('inspector-next') as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByTestId('inspector-prev'));
    await waitFor(() => expect(screen.getByTestId('inspector-range').textContent).toBe('lines 2,001-4,000 of 4,500'));
    expect(asked).toEqual([1, 2001, 4001, 2001]);
  }, 30_000);

  it('shows a read’s stored body as it is: its own `N: ` numbers, none added', async () => {
    fakeApi({ recall: async (_session, id) => recallView({ id, lines: ['1: one', '2: two'], totalLines: 2 }) });
    setSlice('transcript', { sessionId: 1 });
    render(<Inspector />);
    fireEvent.change(screen.getByTestId('inspector-id-input'), { target: { value: '#0001' } });
    fireEvent.click(screen.getByTestId('inspector-open'));
    await waitFor(() => expect(screen.getByTestId('inspector-body').children).toHaveLength(2));
    expect([...screen.getByTestId('inspector-body').children].map((line) => line.textContent)).toEqual(['1: one', '2: two']);
  });

  it('shows main’s message for an id it does not have', async () => {
    pagedApi();
    render(<Inspector />);
    fireEvent.change(screen.getByTestId('inspector-id-input'), { target: { value: '#ffff' } });
    fireEvent.click(screen.getByTestId('inspector-open'));
    await waitFor(() => expect(screen.getByTestId('inspector-error').textContent).toBe('No stored result #ffff in session 1.'));
  });
});
