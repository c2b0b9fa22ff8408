// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { requestRow } from '../../test/fakeApi.js';
import { CacheChart, PLOT_H } from './CacheChart.js';
import { RequestTable } from './RequestTable.js';

afterEach(cleanup);

const rows = [
  requestRow({ id: 11, promptTokens: 2964, reusedTokens: 0, newTokens: 2964 }),
  requestRow({ id: 12, promptTokens: 9682, reusedTokens: 9000, newTokens: 682 }),
  requestRow({ id: 13, promptTokens: 4843, reusedTokens: 2911, newTokens: 1932, cause: 'compaction', firstDiff: 2911, systemSha: '5be2d810ffff' }),
];

const h = (id: string) => Number(screen.getByTestId(id).getAttribute('height'));

describe('CacheChart', () => {
  it('draws reused and new tokens as stacked bars proportional to the figures', () => {
    render(<CacheChart rows={rows} />);
    // The tallest bar (9,682 tokens) fills the plot; the others are to scale.
    expect(h('bar-reused-2') + h('bar-new-2')).toBeCloseTo(PLOT_H);
    expect(h('bar-reused-2') / h('bar-new-2')).toBeCloseTo(9000 / 682);
    expect(h('bar-reused-1')).toBe(0);
    expect(h('bar-new-1') / h('bar-new-3')).toBeCloseTo(2964 / 1932);
    expect(h('bar-reused-3') / h('bar-reused-2')).toBeCloseTo(2911 / 9000);
    // Reused sits at the bottom, new on top of it.
    const reused = screen.getByTestId('bar-reused-3');
    const fresh = screen.getByTestId('bar-new-3');
    expect(Number(fresh.getAttribute('y')) + h('bar-new-3')).toBeCloseTo(Number(reused.getAttribute('y')));
  });

  it('marks a break and labels it with its cause', () => {
    render(<CacheChart rows={rows} />);
    expect(screen.getByTestId('cache-break-3').textContent).toBe('compaction · request 3');
    expect(screen.queryByTestId('cache-break-2')).toBeNull();
  });
});

describe('RequestTable', () => {
  it('lists each request’s figures, cause and system prompt sha (8 hex)', () => {
    render(<RequestTable rows={rows} />);
    const row = screen.getByTestId('cache-row-3');
    expect(row.textContent).toContain('4,843');
    expect(row.textContent).toContain('2,911');
    expect(row.textContent).toContain('compaction');
    expect(row.textContent).toContain('5be2d810');
    expect(row.textContent).not.toContain('5be2d810f');
  });
});
