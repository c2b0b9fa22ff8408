// @vitest-environment jsdom
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ReplyPart, ToolView } from '../../../../main/contract.js';
import { setSlice, useKeel } from '../../stores/store.js';
import { fakeApi, resetStores, sessionView } from '../../test/fakeApi.js';
import { fakeLayout } from '../../test/layout.js';
import { Transcript } from './Transcript.js';

afterEach(cleanup);
beforeEach(resetStores);

const toolView = (n: number): ToolView => {
  const id = '#' + n.toString(16).padStart(4, '0');
  return { number: n, id, name: 'read', args: { path: `f${n}.ts` }, text: `[${id} f${n}.ts lines 1-1 of 1 sha 00000000]\n1: x` };
};
const tool = (n: number): ReplyPart => ({ type: 'tool', tool: toolView(n) });

describe('Transcript', () => {
  it('keeps only the rows near the viewport in the DOM for 2,000 results', () => {
    fakeLayout({ width: 1000, height: 900 }, 100);
    const parts = Array.from({ length: 2000 }, (_, i) => tool(i + 1));
    setSlice('transcript', { sessionId: 1, view: sessionView({ turns: [{ seq: 1, status: 'done', words: 'Read them all', notes: [], parts }] }) });
    render(<Transcript />);
    const shown = screen.getAllByTestId(/^tool-result-/);
    expect(shown.length).toBeGreaterThan(3);
    expect(shown.length).toBeLessThan(60);
  });

  it("shows each result's token count as the engine counted it, and nothing where it did not", () => {
    fakeLayout();
    const parts: ReplyPart[] = [{ type: 'tool', tool: { ...toolView(1), tokens: 1234 } }, tool(2)];
    setSlice('transcript', { sessionId: 1, view: sessionView({ turns: [{ seq: 1, status: 'done', words: 'Read', notes: [], parts }] }) });
    render(<Transcript />);
    expect(screen.getByTestId('tool-tokens-0001').textContent).toBe('1,234 tokens');
    expect(screen.queryByTestId('tool-tokens-0002')).toBeNull();
  });

  it('marks a reply the person stopped after what it said, and only that one', () => {
    fakeLayout();
    setSlice('transcript', { sessionId: 1, view: sessionView({ turns: [
      { seq: 1, status: 'done', words: 'First', notes: [], parts: [{ type: 'text', text: 'A whole answer.' }] },
      { seq: 2, status: 'done', words: 'Second', notes: [], parts: [{ type: 'text', text: 'Half an ans' }], stopped: true },
    ] }) });
    render(<Transcript />);
    const marks = screen.getAllByTestId('reply-stopped');
    expect(marks).toHaveLength(1);
    expect(marks[0].textContent).toBe('Stopped: the reply was cut here.');
    // After the cut words, in the transcript's order.
    const text = screen.getByTestId('transcript').textContent ?? '';
    expect(text.indexOf('Half an ans')).toBeLessThan(text.indexOf('Stopped'));
    expect(text.indexOf('A whole answer.')).toBeLessThan(text.indexOf('Second'));
  });

  it('appends tool results and text from events to the open turn, in order', async () => {
    fakeLayout();
    const bash = { ...toolView(0x17), name: 'bash', text: '[#0017]\n[1134 lines elided, full output #0017]\n[exit code 1]', elided: { line: 1, count: 1134 } };
    const open = (parts: ReplyPart[]) => sessionView({ running: true, turns: [{ seq: 2, status: 'open', words: 'Run the tests', notes: [], parts }] });
    // Once the call ran, main's record of the turn has the reply's words and the call.
    let recorded = open([]);
    fakeApi({ openSession: async () => recorded });
    setSlice('transcript', { sessionId: 1, running: true, view: open([]) });
    render(<Transcript />);
    act(() => {
      useKeel.getState().transcript.onText('Running ');
      useKeel.getState().transcript.onText('them.');
    });
    expect(screen.getByTestId('turn-2-part-0').textContent).toContain('Running them.');
    recorded = open([{ type: 'text', text: 'Running them.' }, { type: 'tool', tool: bash }]);
    await act(async () => {
      useKeel.getState().transcript.onTool(bash);
      useKeel.getState().transcript.onText('Three fail.');
    });
    expect(screen.getByTestId('turn-2-part-0').textContent).toContain('Running them.');
    expect(screen.getByTestId('turn-2-part-1').textContent).toContain('[exit code 1]');
    expect(screen.getByTestId('elided-band')).toBeTruthy();
    expect(screen.getByTestId('turn-2-part-2').textContent).toContain('Three fail.');
    expect(screen.getByTestId('working')).toBeTruthy();
  });

  it('shows streamed words, then the result of the call that followed them', () => {
    fakeLayout();
    fakeApi({ openSession: () => new Promise(() => undefined) });
    setSlice('transcript', { sessionId: 1, running: true, view: sessionView({ running: true, turns: [{ seq: 2, status: 'open', words: 'Read it', notes: [], parts: [tool(1)] }] }) });
    render(<Transcript />);
    act(() => useKeel.getState().transcript.onText('Now f2.'));
    act(() => useKeel.getState().transcript.onTool(toolView(2)));
    // The turn's earlier result stays; the words and the new result follow it.
    expect(screen.getByTestId('turn-2-part-0').textContent).toContain('[#0001 f1.ts');
    expect(screen.getByTestId('turn-2-part-1').textContent).toContain('Now f2.');
    expect(screen.getByTestId('turn-2-part-2').textContent).toContain('[#0002 f2.ts');
  });
});
