// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LocalSettings, LocalSettingsText, LocalSetup, ModelPlan } from '../../../../main/contract.js';
import { App } from '../../App.js';
import { setSlice, useKeel } from '../../stores/store.js';
import { doctorReport, fakeApi, resetStores } from '../../test/fakeApi.js';
import { fakeLayout } from '../../test/layout.js';
import { StatusBar } from '../StatusBar.js';
import { SettingsPanel } from './SettingsPanel.js';

/** The report arrives through a few awaits; a busy machine needs more than the default second. */
const SOON = { timeout: 10_000 };

afterEach(cleanup);
beforeEach(() => {
  resetStores();
  fakeLayout();
});

const MODEL = '/models/coder.gguf';
const setup: LocalSetup = {
  backend: 'CUDA', devices: ['NVIDIA RTX 4070 Laptop GPU'], gpuLayers: 29, totalLayers: 29, contextSize: 32768, trainContextSize: 32768,
  sequences: 4, kvCacheType: 'F16', flashAttention: 'auto', threads: 8, cacheStrategy: 'prefix',
};
const saved: LocalSettings = {
  backend: 'auto', gpuLayers: 'auto', contextSize: 16384, threads: 'auto', kvCacheType: 'auto', checkpointMemory: 'auto', windowCache: 'auto',
};

const HYBRID_CACHE: ModelPlan['cache'] = {
  architecture: { name: 'qwen35', class: 'hybrid', supported: true },
  fullWindowCache: { value: true, why: 'The model has no sliding-window layers.' },
  strategy: { value: 'checkpoints', why: 'The recurrent state cannot be cut back to a prefix.' },
  checkpointBytes: 52_000_000,
  budget: { value: 1_200_000_000, why: 'A twentieth of this machine\'s memory per session.' },
};

function withModel() {
  return doctorReport({
    model: {
      path: MODEL, sizeBytes: 4_700_000_000, totalLayers: 29, trainContextSize: 32768, sequences: 4, cache: HYBRID_CACHE,
      gpuLayers: { value: 29, why: 'All 29 layers fit in free VRAM (7.1 GB) with room for the context.' },
      contextSize: { value: 16384, why: 'Set to 16,384 (the model was trained for 32,768).' },
      kvCacheType: { value: 'F16', why: "node-llama-cpp's default." },
      flashAttention: { value: 'auto', why: 'llama.cpp uses it where the device supports it.' },
      threads: { value: 8, why: "node-llama-cpp's default for this machine (8 cores useful for math)." },
      estimate: { ram: 600_000_000, vram: 6_400_000_000 },
    },
  });
}

describe('Settings panel', () => {
  it('shows the machine, what Keel would use for the model and why, and what is in use now', async () => {
    fakeApi({ localSettings: async () => saved, doctor: async () => withModel() });
    setSlice('model', { app: { modelsFolder: '/models', dataFolder: '/data', loadedModel: MODEL, loadedSetups: { [MODEL]: setup } } });
    render(<SettingsPanel onClose={() => undefined} />);
    await waitFor(() => expect(screen.getByTestId('doctor-plan')).toBeTruthy(), SOON);
    expect(screen.getByTestId('doctor-backend').textContent).toBe('CPUnode-llama-cpp looked for CUDA and Vulkan and found no usable GPU; the CPU runs the model.');
    expect(screen.getByTestId('doctor-machine').textContent).toContain('RAM20.0 GB free of 25.0 GB (24.0 GB usable)');
    expect(screen.getByTestId('doctor-context').textContent).toBe('16,384 tokens × 4 sessionsSet to 16,384 (the model was trained for 32,768).');
    expect(screen.getByTestId('doctor-plan').textContent).toContain('29 of 29All 29 layers fit in free VRAM (7.1 GB) with room for the context.');
    expect(screen.getByTestId('settings-in-use').textContent).toMatch(/^In use now: CUDA · 32,768 ctx · 29 of 29 layers on the GPU · KV F16 · 8 threads · 4 sessions at once$/);
    expect((screen.getByTestId('settings-context') as HTMLInputElement).value).toBe('16384');
    expect((screen.getByTestId('settings-gpu-layers') as HTMLInputElement).value).toBe('auto');
    expect([...(screen.getByTestId('settings-kv') as HTMLSelectElement).options].map((o) => o.value)).toEqual(['auto', 'f16', 'q8_0', 'q4_0']);
  });

  it('sends the five settings as typed, and shows main’s refusal in words, keeping what was typed', async () => {
    const sent: LocalSettingsText[] = [];
    fakeApi({
      localSettings: async () => saved,
      doctor: async () => withModel(),
      setLocalSettings: async (given) => {
        sent.push(given);
        throw new Error('A 131,072-token context is more than this model was trained for; it takes up to 32,768.');
      },
    });
    render(<SettingsPanel onClose={() => undefined} />);
    await waitFor(() => expect((screen.getByTestId('settings-context') as HTMLInputElement).value).toBe('16384'), SOON);
    fireEvent.change(screen.getByTestId('settings-context'), { target: { value: '131072' } });
    fireEvent.change(screen.getByTestId('settings-backend'), { target: { value: 'cpu' } });
    fireEvent.click(screen.getByTestId('settings-save'));
    await waitFor(() => expect(screen.getByTestId('settings-error').textContent).toBe('A 131,072-token context is more than this model was trained for; it takes up to 32,768.'), SOON);
    expect(sent).toEqual([{ backend: 'cpu', gpuLayers: 'auto', contextSize: '131072', threads: 'auto', kvCacheType: 'auto', checkpointMemory: 'auto', windowCache: 'auto', speculation: 'auto', draftModel: '', flashAttention: 'auto' }]);
    expect((screen.getByTestId('settings-context') as HTMLInputElement).value).toBe('131072');
  });

  it('offers speculation and the models that could draft, sends the chosen draft, and shows why one is used or not', async () => {
    const sent: LocalSettingsText[] = [];
    const small = '/models/coder-0.5b.gguf';
    fakeApi({
      localSettings: async () => saved,
      doctor: async () => {
        const r = withModel();
        return {
          ...r, options: { ...r.options, speculations: ['auto', 'on', 'off'] as const },
          model: { ...r.model!, draft: { value: null, why: `${small} has another vocabulary than ${MODEL}: token 267 differs.` } },
        };
      },
      setLocalSettings: async (given) => {
        sent.push(given);
        return saved;
      },
    });
    setSlice('model', { models: [
      { path: MODEL, name: 'coder.gguf', sizeBytes: 4_700_000_000 },
      { path: small, name: 'coder-0.5b.gguf', sizeBytes: 500_000_000, draftFor: MODEL },
      { path: '/models/other.gguf', name: 'other.gguf', sizeBytes: 300_000_000 },
    ] as never });
    render(<SettingsPanel onClose={() => undefined} />);
    await waitFor(() => expect(screen.getByTestId('doctor-draft')).toBeTruthy(), SOON);
    expect(screen.getByTestId('doctor-draft').textContent).toBe(`none${small} has another vocabulary than ${MODEL}: token 267 differs.`);
    expect([...(screen.getByTestId('settings-draft') as HTMLSelectElement).options].map((o) => o.value)).toEqual(['', small]);
    fireEvent.change(screen.getByTestId('settings-draft'), { target: { value: small } });
    fireEvent.change(screen.getByTestId('settings-speculation'), { target: { value: 'on' } });
    fireEvent.click(screen.getByTestId('settings-save'));
    await waitFor(() => expect(sent).toHaveLength(1), SOON);
    expect(sent[0]).toEqual({ ...sent[0], speculation: 'on', draftModel: small });
  });

  it('offers flash attention as main lists it, shows the plan\'s reason, and sends the choice', async () => {
    const sent: LocalSettingsText[] = [];
    fakeApi({
      localSettings: async () => ({ ...saved, flashAttention: 'off' }),
      doctor: async () => {
        const r = withModel();
        return {
          ...r, options: { ...r.options, flashAttentions: ['auto', 'on', 'off'] as const },
          model: { ...r.model!, flashAttention: { value: 'off', why: 'Set to off.' }, speculation: { value: 'auto', why: 'auto: each session judged' } },
        };
      },
      setLocalSettings: async (given) => {
        sent.push(given);
        return saved;
      },
    });
    render(<SettingsPanel onClose={() => undefined} />);
    await waitFor(() => expect((screen.getByTestId('settings-flash-attention') as HTMLSelectElement).value).toBe('off'), SOON);
    expect([...(screen.getByTestId('settings-flash-attention') as HTMLSelectElement).options].map((o) => o.value)).toEqual(['auto', 'on', 'off']);
    expect(screen.getByTestId('doctor-plan').textContent).toContain('offSet to off.');
    fireEvent.change(screen.getByTestId('settings-flash-attention'), { target: { value: 'on' } });
    fireEvent.click(screen.getByTestId('settings-save'));
    await waitFor(() => expect(sent).toHaveLength(1), SOON);
    expect(sent[0].flashAttention).toBe('on');
  });

  it('shows threads and batch size measured here, and prefill threads where they differ', async () => {
    fakeApi({
      localSettings: async () => saved,
      doctor: async () => {
        const r = withModel();
        return {
          ...r, model: {
            ...r.model!,
            threads: { value: 1, why: 'Measured for decoding: decoding 5.0 ms a token with 1, against 9.1 ms with 2 (measured 2026-12-07, load average 0.40).' },
            batchThreads: { value: 2, why: 'Measured for prefill: prefill 1,021 tokens/s with 2, against 683 tokens/s with 1 (measured 2026-12-07, load average 0.40).' },
            batchSize: { value: 1024, why: "Measured: prefill 1,100 tokens/s against 900 tokens/s at 512, node-llama-cpp's default." },
          },
        };
      },
    });
    setSlice('model', { app: { modelsFolder: '/models', dataFolder: '/data', loadedModel: MODEL, loadedSetups: { [MODEL]: { ...setup, threads: 1, batchThreads: 2 } } } });
    render(<SettingsPanel onClose={() => undefined} />);
    await waitFor(() => expect(screen.getByTestId('doctor-batch-threads')).toBeTruthy(), SOON);
    expect(screen.getByTestId('doctor-threads').textContent).toBe('1Measured for decoding: decoding 5.0 ms a token with 1, against 9.1 ms with 2 (measured 2026-12-07, load average 0.40).');
    expect(screen.getByTestId('doctor-batch-threads').textContent).toMatch(/^2Measured for prefill: /);
    expect(screen.getByTestId('doctor-batch-size').textContent).toMatch(/^1,024 tokensMeasured: prefill 1,100 tokens\/s/);
    expect(screen.getByTestId('settings-in-use').textContent).toContain('1 thread (2 for prefill) · 4 sessions at once');
  });

  it('after a save, reads the settings, the report and the app state again', async () => {
    let calls = 0;
    let state = 0;
    fakeApi({
      localSettings: async () => saved,
      doctor: async () => {
        calls++;
        return withModel();
      },
      setLocalSettings: async () => ({ ...saved, threads: 2 }),
      getState: async () => {
        state++;
        return { modelsFolder: '/models', dataFolder: '/data', loadedModel: MODEL, loadedSetups: { [MODEL]: { ...setup, threads: 2 } } };
      },
    });
    render(<SettingsPanel onClose={() => undefined} />);
    await waitFor(() => expect(calls).toBe(1), SOON);
    fireEvent.change(screen.getByTestId('settings-threads'), { target: { value: '2' } });
    fireEvent.click(screen.getByTestId('settings-save'));
    await waitFor(() => expect(screen.getByTestId('settings-in-use').textContent).toContain('2 threads'), SOON);
    expect(calls).toBe(2);
    expect(state).toBe(1);
    expect(screen.queryByTestId('settings-error')).toBeNull();
  });

  it('shows a plan’s problem above what fits', async () => {
    const report = withModel();
    report.model!.problem = 'A 65,536-token context (for 4 sessions at once) does not fit in the VRAM and RAM free beside the model (1.2 GB + 3.4 GB); up to 12,288 fits.';
    fakeApi({ doctor: async () => report });
    render(<SettingsPanel onClose={() => undefined} />);
    await waitFor(() => expect(screen.getByTestId('doctor-problem').textContent).toBe(`These settings cannot be used with this model: ${report.model!.problem}`), SOON);
  });

  it('asks before a cache break above the seconds typed: sent as typed, main\'s refusal beside the field, saved and shown again', async () => {
    const sent: string[] = [];
    let kept: number | undefined = 30;
    fakeApi({
      getState: async () => ({ modelsFolder: '/models', dataFolder: '/data', askAboveSeconds: kept }),
      setAskAboveSeconds: async (typed) => {
        sent.push(typed);
        // Main's check (main/app/settings.ts parseAskAboveSeconds), played: the renderer shows its words.
        if (!/^\d*\.?\d*$/.test(typed.trim())) throw new Error(`"${typed}" is not a number of seconds: give 0 or more (like 5 or 0.5), or leave it empty to never ask.`);
        kept = typed.trim() === '' ? undefined : Number(typed);
        return kept;
      },
    });
    await useKeel.getState().model.refreshState();
    render(<SettingsPanel onClose={() => undefined} />);
    const field = screen.getByRole('textbox', { name: /Ask before a cache break that takes longer than/ }) as HTMLInputElement;
    expect(field).toBe(screen.getByTestId('settings-ask-above'));
    expect(field.value).toBe('30');
    fireEvent.change(field, { target: { value: '-5' } });
    fireEvent.click(screen.getByTestId('settings-ask-above-save'));
    const error = await screen.findByTestId('settings-ask-above-error');
    expect(error.textContent).toBe('"-5" is not a number of seconds: give 0 or more (like 5 or 0.5), or leave it empty to never ask.');
    // Beside the field and named by it, the typed words kept, nothing saved.
    expect(error.parentElement).toBe(screen.getByTestId('ask-above-form'));
    expect(field.getAttribute('aria-invalid')).toBe('true');
    expect(field.getAttribute('aria-describedby')).toBe(error.id);
    expect(field.value).toBe('-5');
    expect(useKeel.getState().model.app?.askAboveSeconds).toBe(30);

    fireEvent.change(field, { target: { value: '12.5' } });
    fireEvent.submit(screen.getByTestId('ask-above-form'));
    await screen.findByTestId('settings-ask-above-saved');
    expect(screen.queryByTestId('settings-ask-above-error')).toBeNull();
    expect(field.getAttribute('aria-invalid')).toBe('false');
    await waitFor(() => expect(useKeel.getState().model.app?.askAboveSeconds).toBe(12.5));
    expect(field.value).toBe('12.5');

    // Empty: never ask.
    fireEvent.change(field, { target: { value: '' } });
    expect(screen.queryByTestId('settings-ask-above-saved')).toBeNull();
    fireEvent.click(screen.getByTestId('settings-ask-above-save'));
    await waitFor(() => expect(useKeel.getState().model.app?.askAboveSeconds).toBeUndefined());
    expect(field.value).toBe('');
    expect(field.placeholder).toBe('never');
    expect(sent).toEqual(['-5', '12.5', '']);
  });

  it('opens with Ctrl+, and the title bar button, closes with Escape', async () => {
    fakeApi();
    render(<App />);
    fireEvent.keyDown(window, { key: ',', ctrlKey: true });
    await waitFor(() => expect(screen.getByTestId('settings-panel')).toBeTruthy(), SOON);
    expect(useKeel.getState().ui.settingsOpen).toBe(true);
    fireEvent.keyDown(window, { key: 'Escape' });
    expect(screen.queryByTestId('settings-panel')).toBeNull();
    fireEvent.click(screen.getByTestId('settings-button'));
    expect(screen.getByTestId('settings-panel')).toBeTruthy();
  });
});

describe('Status bar', () => {
  it('shows the backend and context of the model in use', () => {
    fakeApi();
    setSlice('model', { app: { modelsFolder: '/models', dataFolder: '/data', loadedModel: MODEL, loadedSetups: { [MODEL]: setup } } });
    render(<StatusBar />);
    expect(screen.getByTestId('status-engine').textContent).toBe('CUDA · 32,768 ctx');
    expect(screen.getByTestId('status-engine').title).toContain('29 of 29 layers on the GPU (NVIDIA RTX 4070 Laptop GPU)');
  });

  it('shows nothing for a model that is not loaded', () => {
    fakeApi();
    setSlice('model', { app: { modelsFolder: '/models', dataFolder: '/data', lastModel: MODEL } });
    render(<StatusBar />);
    expect(screen.queryByTestId('status-engine')).toBeNull();
  });
});

describe('All settings (settings.json)', () => {
  it('lists every setting main describes, saves an edited value as typed, shows main\'s refusal beside it, and unsets an emptied one', async () => {
    const sent: [string, string | undefined][] = [];
    const kept: Record<string, unknown> = { askAboveSeconds: 4 };
    const views = () => [
      { name: 'askAboveSeconds', description: 'Ask before an action whose cache break would take longer than this many seconds.', ...(kept.askAboveSeconds === undefined ? {} : { value: kept.askAboveSeconds }) },
      { name: 'rules', description: 'Permission rules.', ...(kept.rules === undefined ? {} : { value: kept.rules }) },
    ];
    fakeApi({
      settings: async () => views(),
      setSetting: async (name, typed) => {
        sent.push([name, typed]);
        // Main's check (main/app/settings.ts setSetting), played: the renderer shows its words and keeps the row as typed.
        if (typed === 'soon') throw new Error('askAboveSeconds cannot be soon: "askAboveSeconds" Invalid input: expected number, received string. Nothing was written.');
        kept[name] = typed === undefined ? undefined : JSON.parse(typed);
        return views();
      },
    });
    render(<SettingsPanel onClose={() => undefined} />);
    const row = await screen.findByTestId('setting-askAboveSeconds', {}, SOON);
    const input = row.querySelector('input')!;
    expect(input.value).toBe('4');
    expect(screen.getByTestId('setting-rules').querySelector('input')!.value).toBe('');
    expect(row.textContent).toContain('Ask before an action whose cache break would take longer than this many seconds.');

    fireEvent.change(input, { target: { value: 'soon' } });
    fireEvent.click(row.querySelector('button')!);
    await waitFor(() => expect(row.querySelector('[role="alert"]')?.textContent).toMatch(/^askAboveSeconds cannot be soon: .*Nothing was written\.$/), SOON);
    expect(input.value).toBe('soon');

    fireEvent.change(input, { target: { value: '2.5' } });
    fireEvent.click(row.querySelector('button')!);
    await waitFor(() => expect(row.querySelector('[role="alert"]')).toBeNull(), SOON);
    const rules = screen.getByTestId('setting-rules');
    fireEvent.change(rules.querySelector('input')!, { target: { value: '[{"action": "deny", "tool": "bash"}]' } });
    fireEvent.click(rules.querySelector('button')!);
    await waitFor(() => expect(rules.querySelector('input')!.value).toBe('[{"action":"deny","tool":"bash"}]'), SOON);
    fireEvent.change(input, { target: { value: '  ' } });
    fireEvent.click(row.querySelector('button')!);
    await waitFor(() => expect(kept.askAboveSeconds).toBeUndefined(), SOON);
    expect(sent).toEqual([['askAboveSeconds', 'soon'], ['askAboveSeconds', '2.5'], ['rules', '[{"action": "deny", "tool": "bash"}]'], ['askAboveSeconds', undefined]]);
  });
});
