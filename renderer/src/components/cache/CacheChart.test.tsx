// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { requestRow } from '../../test/fakeApi.js';
import { CacheChart, PLOT_H, stackLabels } from './CacheChart.js';
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

describe('CacheChart labels', () => {
  it('writes every model run and break label in full, even for a one-request run', () => {
    const many = [
      requestRow({ id: 1, model: '/m/Qwen2.5-Coder-3B-Instruct-Q4_K_M.gguf' }),
      requestRow({ id: 2, model: '/m/Qwen2.5-Coder-3B-Instruct-Q4_K_M.gguf' }),
      requestRow({ id: 3, model: '/m/Qwen2.5-Coder-7B-Instruct-Q4_K_M.gguf', cause: 'model switched', reusedTokens: 0 }),
      requestRow({ id: 4, model: '/m/Qwen2.5-Coder-7B-Instruct-Q4_K_M.gguf', cause: 'compaction' }),
    ];
    render(<CacheChart rows={many} />);
    const runs = screen.getAllByTestId('cache-model-run').map((g) => g.querySelector('text')?.textContent);
    expect(runs).toEqual(['Qwen2.5-Coder-3B-Instruct-Q4_K_M · requests 1–2', 'Qwen2.5-Coder-7B-Instruct-Q4_K_M · requests 3–4']);
    expect(screen.getByTestId('cache-break-3').textContent).toBe('model switched · request 3');
    expect(screen.getByTestId('cache-break-4').textContent).toBe('compaction · request 4');
    // Neighbouring breaks are a bar apart: their labels go on separate rows, not over each other.
    expect(screen.getByTestId('cache-break-3').getAttribute('y')).not.toBe(screen.getByTestId('cache-break-4').getAttribute('y'));
    expect(document.body.textContent).not.toContain('…');
  });

  it('stacks overlapping labels onto further rows', () => {
    const lanes = stackLabels([
      { x: 0, width: 100 },
      { x: 50, width: 100 },
      { x: 120, width: 40 },
      { x: 200, width: 10 },
    ]).map((l) => l.lane);
    expect(lanes).toEqual([0, 1, 0, 0]);
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

  it('names the checkpoint a request on a hybrid model resumed from, or why there was none', () => {
    render(<RequestTable rows={[
      requestRow({ id: 1, cause: 'undo', engine: { checkpoint: { restoredAt: 4211, reread: 0 } } }),
      requestRow({ id: 2, cause: 'rewind', engine: { checkpoint: { restoredAt: null, reread: 5120, why: 'checkpoints were dropped to stay within the 256 MB checkpoint budget' } } }),
      requestRow({ id: 3 }),
    ]} />);
    expect(screen.getByTestId('cache-checkpoint-1').textContent).toContain('restored checkpoint at token 4,211, re-read 0 tokens');
    expect(screen.getByTestId('cache-checkpoint-2').textContent).toContain('no checkpoint kept before the departure (checkpoints were dropped to stay within the 256 MB checkpoint budget): re-read 5,120 tokens from token 0');
    expect(screen.queryByTestId('cache-checkpoint-3')).toBeNull();
  });

  it('says what a request\'s drafts came to, and why drafting stopped', () => {
    render(<RequestTable rows={[
      requestRow({ id: 1, engine: { speculation: { accepted: 115, refuted: 29 } } }),
      requestRow({ id: 2, engine: { speculation: { accepted: 3, refuted: 297, off: 'under 10 % accepted after 256 drafted tokens' } } }),
      requestRow({ id: 3 }),
    ]} />);
    expect(screen.getByTestId('cache-drafts-1').textContent).toContain('115 of 144 drafted accepted (80 %)');
    expect(screen.getByTestId('cache-drafts-2').textContent).toContain('3 of 300 drafted accepted (1 %); drafting off: under 10 % accepted after 256 drafted tokens');
    expect(screen.queryByTestId('cache-drafts-3')).toBeNull();
  });
});
