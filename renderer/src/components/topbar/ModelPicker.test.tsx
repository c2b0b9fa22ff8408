// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeApi, requestRow, sessionView, summary } from '../../test/fakeApi.js';
import { RequestTable } from '../cache/RequestTable.js';
import type { LocalSetup } from '../../../../main/contract.js';
import { setSlice } from '../../stores/store.js';
import { dispatch } from '../../events.js';
import { ModelChip } from './ModelChip.js';
import { ModelPicker, Progress } from './ModelPicker.js';

afterEach(cleanup);

describe('the model picker\'s server choice', () => {
  it('lists a server\'s models with the key given once, then makes the chosen one the model', async () => {
    const serverModels = vi.fn(async () => ['qwen3-8b', 'devstral']);
    const useServerModel = vi.fn(async (url: string, model: string) => `${url}#${model}`);
    fakeApi({ serverModels, useServerModel });
    render(<ModelPicker inline />);
    expect(screen.getByText('This computer (GGUF file)')).toBeTruthy();
    fireEvent.change(screen.getByTestId('server-url-input'), { target: { value: 'http://gpu:8000' } });
    fireEvent.change(screen.getByTestId('server-key-input'), { target: { value: 'sk-1' } });
    fireEvent.click(screen.getByTestId('server-list-submit'));
    await waitFor(() => expect(screen.getAllByTestId('server-model-option')).toHaveLength(2));
    expect(serverModels).toHaveBeenCalledWith('http://gpu:8000', 'sk-1');
    expect((screen.getByTestId('server-key-input') as HTMLInputElement).value).toBe('');
    fireEvent.click(screen.getAllByTestId('server-model-option')[1]);
    await waitFor(() => expect(useServerModel).toHaveBeenCalledWith('http://gpu:8000', 'devstral', undefined));
  });

  it('labels a server\'s cached tokens "reported by server", or "not reported"', () => {
    const server = { url: 'http://gpu:8000', change: null };
    render(<RequestTable rows={[
      requestRow({ id: 1, reusedTokens: 900, engine: { server: { ...server, cachedTokens: 900 } } }),
      requestRow({ id: 2, reusedTokens: 0, engine: { server: { ...server, cachedTokens: null } } }),
    ]} />);
    expect(screen.getByTestId('cache-row-1').textContent).toContain('reported by server');
    expect(screen.getByTestId('cache-row-2').textContent).toContain('not reported');
  });
});

describe('which model the picker marks loaded', () => {
  const setup: LocalSetup = {
    backend: 'CPU', devices: [], gpuLayers: 0, totalLayers: 2, contextSize: 4096, trainContextSize: 4096, sequences: 4, kvCacheType: 'F16', flashAttention: 'auto', threads: 2, cacheStrategy: 'prefix',
  };
  const files = ['/models/a.gguf', '/models/b.gguf', '/models/c.gguf'].map((path) => ({ path, name: path.slice(8), sizeBytes: 1000 }));

  it('marks each model main holds loaded, not the one chosen last, and the open session\'s own', async () => {
    // a.gguf was the app's choice (loadedModel) but a session moved to b.gguf, and a's load is gone.
    const app = { modelsFolder: '/models', dataFolder: '/data', loadedModel: '/models/a.gguf', loadedSetups: { '/models/b.gguf': setup } };
    fakeApi({ getState: async () => app, listModels: async () => files });
    setSlice('model', { app, models: files });
    setSlice('transcript', { sessionId: 1, view: sessionView({ summary: summary({ model: '/models/b.gguf' }) }) });
    try {
      render(<ModelPicker />);
      await waitFor(() => expect(screen.getAllByTestId('model-option')).toHaveLength(3));
      const [a, b, c] = screen.getAllByTestId('model-option').map((o) => o.textContent ?? '');
      expect(a).not.toContain('loaded');
      expect(b).toContain('loaded');
      expect(b).toContain('this session');
      expect(c).not.toContain('loaded');
      cleanup();
      // The chip says the session's model is loaded; with b's load gone too, it says "not loaded".
      render(<ModelChip />);
      expect(screen.getByTestId('model-chip').textContent).toContain('b.gguf');
      expect(screen.getByTestId('model-chip').textContent).toContain('loaded');
      expect(screen.getByTestId('model-chip').textContent).not.toContain('not loaded');
      setSlice('model', { app: { ...app, loadedSetups: {} } });
      await waitFor(() => expect(screen.getByTestId('model-chip').textContent).toContain('not loaded'));
    } finally {
      setSlice('transcript', { sessionId: undefined, view: undefined });
    }
  });
});

describe('loading progress', () => {
  it("moves with main's model-progress events, and is gone once the model is loaded", async () => {
    fakeApi();
    setSlice('model', { app: { modelsFolder: '/models', dataFolder: '/data' }, progress: undefined });
    render(<><ModelChip /><Progress /></>);
    dispatch({ type: 'model-progress', path: '/models/a.gguf', fraction: 0 });
    await waitFor(() => expect(screen.getByTestId('model-chip').textContent).toContain('loading 0%'));
    // No figure yet: the bar is indeterminate (no value), not an empty 0 %.
    expect(screen.getByTestId('model-progress').textContent).toContain('starting…');
    expect(screen.getByTestId('model-progress').querySelector('progress')!.hasAttribute('value')).toBe(false);
    dispatch({ type: 'model-progress', path: '/models/a.gguf', fraction: 0.42 });
    await waitFor(() => expect(screen.getByTestId('model-chip').textContent).toContain('loading 42%'));
    expect(screen.getByTestId('model-progress').querySelector('progress')!.getAttribute('value')).toBe('42');
    dispatch({ type: 'model-loaded', path: '/models/a.gguf' });
    await waitFor(() => expect(screen.getByTestId('model-chip').textContent).not.toContain('loading'));
  });
});
