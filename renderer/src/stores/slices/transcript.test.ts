import { beforeEach, describe, expect, it } from 'vitest';
import type { SessionView, ToolView } from '../../../../main/contract.js';
import { displayTurns } from '../../lib/transcriptRows.js';
import { fakeApi, resetStores, sessionView } from '../../test/fakeApi.js';
import { setSlice, useKeel } from '../store.js';

beforeEach(resetStores);

const read = (n: number): ToolView => ({ number: n, id: `#000${n}`, name: 'read', args: { path: 'a.txt' }, text: `[#000${n} a.txt lines 1-1 of 1 sha 00000000]\n1: one` });
const turn = (status: 'open' | 'done', parts: SessionView['turns'][number]['parts']) => sessionView({ turns: [{ seq: 1, status, words: 'Read a.txt', notes: [], parts }] });
const shown = () => {
  const s = useKeel.getState().transcript;
  return displayTurns(s.view, s.live, s.pending).at(-1)?.parts.map((p) => (p.type === 'text' ? p.text : p.tool.id));
};

describe('the transcript slice while a turn streams', () => {
  it('appends streamed words and tool results in the order they come, keeping what came before', () => {
    fakeApi({ openSession: () => new Promise(() => undefined) });
    setSlice('transcript', { sessionId: 1, running: true, view: turn('open', [{ type: 'text', text: 'Reading.' }, { type: 'tool', tool: read(1) }]) });
    const t = useKeel.getState().transcript;
    t.onText('Now the ');
    t.onText('second.');
    t.onTool(read(2));
    expect(shown()).toEqual(['Reading.', '#0001', 'Now the second.', '#0002']);
    t.onText('Both say one.');
    expect(shown()).toEqual(['Reading.', '#0001', 'Now the second.', '#0002', 'Both say one.']);
  });

  it('clears the streamed parts at the end of a turn only once the newest view has landed', async () => {
    const answers: ((v: SessionView) => void)[] = [];
    fakeApi({ openSession: () => new Promise<SessionView>((resolve) => answers.push(resolve)) });
    setSlice('transcript', { sessionId: 1, running: true, view: turn('open', []), live: { parts: [{ type: 'text', text: 'Done.' }] } });
    // Both end-of-turn signals (the event and the call's reply) reload; the first answer is dropped.
    const ended = [useKeel.getState().transcript.onTurnEnded(), useKeel.getState().transcript.onTurnEnded()];
    answers[0]!(turn('open', []));
    await new Promise((r) => setTimeout(r, 0));
    expect(shown()).toEqual(['Done.']);
    answers[1]!(turn('done', [{ type: 'text', text: 'Done.' }]));
    await Promise.all(ended);
    expect(useKeel.getState().transcript.live).toBeUndefined();
    expect(shown()).toEqual(['Done.']);
    expect(useKeel.getState().transcript.running).toBe(false);
  });
});
