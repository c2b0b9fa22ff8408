// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setSlice, useKeel } from '../../stores/store.js';
import { fakeApi, recallView, resetStores } from '../../test/fakeApi.js';
import { Linkified } from './IdLink.js';

afterEach(cleanup);
beforeEach(resetStores);

describe('Linkified', () => {
  it('makes every id a link and leaves the rest of the text as it is', () => {
    const text = '[#0019 src/app.ts lines 50-80 of 340 sha 1c9e04ab]\nUnchanged since #0012, which already shows lines 1-200. Not #abc, not x#0013.';
    const { container } = render(<div data-testid="box"><Linkified text={text} /></div>);
    expect(screen.getAllByTestId('id-link').map((b) => b.textContent)).toEqual(['#0019', '#0012']);
    expect(container.textContent).toBe(text);
  });

  it('opens the clicked id in the inspector', async () => {
    const calls: unknown[][] = [];
    fakeApi({ recall: async (...args) => (calls.push(args), recallView({ id: '#0012' })) });
    setSlice('transcript', { sessionId: 4 });
    render(<Linkified text="Same result as #0012." />);
    fireEvent.click(screen.getByTestId('id-link'));
    expect(useKeel.getState().ui.inspectorOpen).toBe(true);
    await waitFor(() => expect(useKeel.getState().inspector.view?.id).toBe('#0012'));
    expect(calls).toEqual([[4, '#0012', 1]]);
  });
});
