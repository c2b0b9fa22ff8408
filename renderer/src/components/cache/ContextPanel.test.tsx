// @vitest-environment jsdom
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setSlice } from '../../stores/store.js';
import { contextView, fakeApi, resetStores } from '../../test/fakeApi.js';
import { ContextPanel } from './ContextPanel.js';

afterEach(cleanup);
beforeEach(resetStores);

const width = (id: string) => parseFloat(screen.getByTestId(id).style.width);

describe('ContextPanel', () => {
  it('shows main\'s view of the next request: a bar of the parts to scale, cached then new, and each part in the table', async () => {
    const asked: number[] = [];
    fakeApi({ context: async (id: number) => (asked.push(id), contextView()) });
    setSlice('requests', { sessionId: 7 } as never);
    render(<ContextPanel />);
    await waitFor(() => expect(screen.getByTestId('context-summary').textContent).toBe('400 prompt tokens: 360 cached, 40 new · context 8,192'));
    expect(asked).toEqual([7]);
    // Widths are each part's share of the prompt: the tool list 150 of 400.
    expect(width('context-segment-0')).toBeCloseTo(25);
    expect(width('context-segment-1')).toBeCloseTo(37.5);
    const next = screen.getByTestId('context-segment-4');
    expect(parseFloat((next.querySelector('.context-cached') as HTMLElement).style.width)).toBe(0);
    expect(parseFloat((next.querySelector('.context-new') as HTMLElement).style.width)).toBe(100);
    expect([...screen.getByTestId('context-row-3').querySelectorAll('td')].map((td) => td.textContent)).toEqual(['turn 1 result #0001 (read)', '90', '90', '0', '40']);
  });

  it('asks nothing while the session answers, and asks again once the reply ends', async () => {
    const asked: number[] = [];
    fakeApi({ context: async (id: number) => (asked.push(id), contextView()) });
    setSlice('requests', { sessionId: 2 } as never);
    setSlice('transcript', { running: true } as never);
    render(<ContextPanel />);
    expect(screen.getByTestId('context-panel').textContent).toContain('Shown once the reply ends.');
    expect(asked).toEqual([]);
    setSlice('transcript', { running: false } as never);
    await waitFor(() => expect(asked).toEqual([2]));
    await screen.findByTestId('context-table');
  });

  it('says why main could not measure it', async () => {
    fakeApi({ context: async () => { throw new Error('No model is loaded: choose a GGUF file or a server first.'); } });
    setSlice('requests', { sessionId: 3 } as never);
    render(<ContextPanel />);
    await waitFor(() => expect(screen.getByTestId('context-panel').textContent).toContain('No model is loaded'));
  });
});
