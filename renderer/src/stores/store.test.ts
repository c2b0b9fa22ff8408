import { beforeEach, describe, expect, it } from 'vitest';
import { fakeApi, resetStores, sessionView, summary } from '../test/fakeApi.js';
import { callMain, setSlice, useKeel } from './store.js';

beforeEach(resetStores);

const messages = () => useKeel.getState().errors.items.map((e) => e.message);

describe('the one store', () => {
  it('reports a failed call once in the banner and hands back main’s words; a quiet one only hands them back', async () => {
    fakeApi({ listSessions: () => Promise.reject(new Error('The store is locked.')) });
    await expect(callMain((api) => api.listSessions())).resolves.toEqual({ ok: false, error: 'The store is locked.' });
    await useKeel.getState().sessions.refresh();
    expect(messages()).toEqual(['The store is locked.']);
    expect(useKeel.getState().sessions.loaded).toBe(false);
    await expect(callMain((api) => api.listSessions(), { quiet: true })).resolves.toEqual({ ok: false, error: 'The store is locked.' });
    useKeel.getState().errors.dismiss(useKeel.getState().errors.items[0]!.id);
    await callMain((api) => api.listSessions(), { quiet: true });
    expect(messages()).toEqual([]);
  });

  it('keeps one error about a thing at a time, and clears it when a call about it succeeds', async () => {
    let fail: string | undefined = 'No .gguf file at /tmp/a.txt.';
    fakeApi({ loadModel: () => (fail ? Promise.reject(new Error(fail)) : Promise.resolve(undefined)), stop: () => Promise.reject(new Error('Not running.')) });
    await useKeel.getState().model.load('/tmp/a.txt');
    fail = 'The file /tmp/missing.gguf does not exist.';
    await useKeel.getState().model.load('/tmp/missing.gguf');
    await callMain((api) => api.stop(1));
    // The newer model error replaced the older one; an error about something else stays.
    expect(messages()).toEqual(['The file /tmp/missing.gguf does not exist.', 'Not running.']);
    fail = undefined;
    await useKeel.getState().model.load('/tmp/model.gguf');
    expect(messages()).toEqual(['Not running.']);
  });

  it('gives a call that failed without a reason readable words', async () => {
    fakeApi({ stop: () => Promise.reject(undefined) });
    await expect(callMain((api) => api.stop(1))).resolves.toEqual({ ok: false, error: 'Something went wrong (no reason given).' });
  });

  it('lets slices act on each other inside the store: deleting the open session empties the transcript, requests and inspector', async () => {
    fakeApi({ listSessions: async () => [summary({ id: 2 })], openSession: async () => sessionView() });
    const s = useKeel.getState();
    await s.sessions.open(1);
    s.ui.openInspector();
    useKeel.setState((st) => ({ inspector: { ...st.inspector, tabs: ['#0001'], active: '#0001' } }));
    expect(useKeel.getState().transcript.sessionId).toBe(1);
    await useKeel.getState().sessions.remove(1);
    const after = useKeel.getState();
    expect([after.sessions.currentId, after.transcript.sessionId, after.requests.sessionId, after.inspector.tabs, after.ui.inspectorOpen])
      .toEqual([undefined, undefined, undefined, [], false]);
    expect(after.sessions.list.map((x) => x.id)).toEqual([2]);
  });

  it('a slice hook reads and patches only its own slice', () => {
    setSlice('transcript', { sessionId: 7 });
    expect(useKeel.getState().transcript.sessionId).toBe(7);
    expect(useKeel.getState().requests.sessionId).toBeUndefined();
    expect(typeof useKeel.getState().transcript.reload).toBe('function');
  });
});
