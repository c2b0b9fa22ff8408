// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeApi, requestRow } from '../../test/fakeApi.js';
import { RequestTable } from '../cache/RequestTable.js';
import { ModelPicker } from './ModelPicker.js';

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
      requestRow({ id: 1, reusedTokens: 900, server: { ...server, cachedTokens: 900 } }),
      requestRow({ id: 2, reusedTokens: 0, server: { ...server, cachedTokens: null } }),
    ]} />);
    expect(screen.getByTestId('cache-row-1').textContent).toContain('reported by server');
    expect(screen.getByTestId('cache-row-2').textContent).toContain('not reported');
  });
});
