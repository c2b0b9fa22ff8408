// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useKeel } from '../../stores/store.js';
import { resetStores } from '../../test/fakeApi.js';
import { ResultText } from './ResultText.js';
import { ToolCall } from './ToolCall.js';

afterEach(cleanup);
beforeEach(resetStores);

const capped = ['[#0017]', '> vitest run', '[1134 lines elided, full output #0017]', ' Tests  3 failed | 609 passed (612)', '[exit code 1]'].join('\n');

describe('ResultText', () => {
  it('shows the elided line as a band labelled “not sent to the model”, its id a link', () => {
    render(<ResultText text={capped} elided={{ line: 2, count: 1134 }} unfolded={false} onToggle={() => undefined} />);
    const band = screen.getByTestId('elided-band');
    expect(band.textContent).toContain('[1134 lines elided, full output #0017]');
    expect(band.textContent).toContain('not sent to the model');
    expect(band.querySelector('[data-testid="id-link"]')?.textContent).toBe('#0017');
  });

  it('shows the text exactly, bracket line first', () => {
    const text = '[#0012 src/app.ts lines 1-3 of 3 sha 1c9e04ab]\n1: a  b\n2:\t<tab>\n3: end';
    const { container } = render(<ResultText text={text} unfolded={false} onToggle={() => undefined} />);
    const lines = [...container.querySelectorAll('.line')].map((l) => l.textContent);
    expect(lines).toEqual(text.split('\n'));
  });

  it('folds a long result in the view and unfolds it on request', () => {
    const text = ['[#0020]', ...Array.from({ length: 99 }, (_, i) => `row ${i}`)].join('\n');
    render(<ToolCall row={{ seq: 1, index: 0, tool: { number: 32, id: '#0020', name: 'bash', args: { command: 'ls' }, text } }} />);
    const fold = screen.getByTestId('fold');
    expect(fold.textContent).toBe('80 lines folded in this view · show');
    fireEvent.click(fold);
    expect(useKeel.getState().transcript.unfolded['#0020']).toBe(true);
    expect(screen.queryByTestId('fold')).toBeNull();
    expect(screen.getByTestId('tool-result-0020').querySelectorAll('.line')).toHaveLength(100);
  });
});
