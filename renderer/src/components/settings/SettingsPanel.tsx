import { useEffect, useState, type FormEvent } from 'react';
import type { Choice, DoctorReport, LocalSettings, LocalSetup, ModelFile, ModelPlan } from '../../../../main/contract.js';
import { basename, bytes, n, setupLine } from '../../lib/format.js';
import { MOD } from '../../shortcuts.js';
import { useKeel } from '../../stores/store.js';
import { AskAboveField } from './AskAboveField.js';
import { SettingsFile } from './SettingsFile.js';

type Form = Record<keyof LocalSettings, string>;

const textOf = (s: LocalSettings): Form => ({
  backend: s.backend, gpuLayers: String(s.gpuLayers), contextSize: String(s.contextSize), threads: String(s.threads), kvCacheType: s.kvCacheType,
  checkpointMemory: String(s.checkpointMemory), windowCache: s.windowCache, speculation: s.speculation ?? 'auto', draftModel: s.draftModel ?? '',
  flashAttention: s.flashAttention ?? 'auto',
});

/**
 * When to ask before a cache break, then the local engine's settings and the doctor's report: the
 * machine, and for the app's model what a load would use and why. Saving the engine's settings
 * sends them as typed; main checks them, loads the model again, and refuses in words what it cannot use.
 */
export function SettingsPanel({ onClose }: { onClose(): void }) {
  const { settings, report, loading, saving, error } = useKeel((s) => s.localEngine);
  const app = useKeel((s) => s.model.app);
  const models = useKeel((s) => s.model.models);
  const [form, setForm] = useState<Form>();

  useEffect(() => {
    void useKeel.getState().localEngine.load();
  }, []);
  useEffect(() => {
    if (settings) setForm(textOf(settings));
  }, [settings]);

  const field = (key: keyof LocalSettings) => ({
    value: form?.[key] ?? '',
    onChange: (e: { target: { value: string } }) => setForm((f) => f && { ...f, [key]: e.target.value }),
  });
  /** A select of the values main offers for a setting (before its report comes: the value set now). */
  const choose = (key: keyof LocalSettings, options: readonly string[] | undefined, testId: string, label = (v: string) => v) => (
    <select {...field(key)} data-testid={testId}>
      {(options ?? [form?.[key] || 'auto']).map((v) => (
        <option key={v} value={v}>
          {label(v)}
        </option>
      ))}
    </select>
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (form) void useKeel.getState().localEngine.save(form);
  };
  const inUse = app?.loadedModel ? app.loadedSetups?.[app.loadedModel] : undefined;

  return (
    <div className="settings-panel popover" role="dialog" aria-label="Settings" data-testid="settings-panel">
      <header>
        <strong>Settings</strong>
        <span className="muted small">Cache breaks · local engine · all settings · {MOD}+,</span>
        <button type="button" className="ghost" onClick={onClose} aria-label="Close the settings" data-testid="settings-close">
          ×
        </button>
      </header>
      <h4 className="small">Cache breaks</h4>
      <AskAboveField />
      <h4 className="small">Local engine</h4>
      {error && (
        <div className="banner banner-error" role="alert" data-testid="settings-error">
          {error}
        </div>
      )}
      <form className="settings-form" onSubmit={submit}>
        <label>
          Backend
          {choose('backend', report?.options.backends, 'settings-backend', (b) => (b === 'auto' ? 'auto (GPU where there is one)' : b.toUpperCase()))}
        </label>
        <label>
          GPU layers
          <input className="mono" {...field('gpuLayers')} placeholder="auto" data-testid="settings-gpu-layers" />
        </label>
        <label>
          Context size (tokens)
          <input className="mono" {...field('contextSize')} placeholder="auto" data-testid="settings-context" />
        </label>
        <label>
          Threads
          <input className="mono" {...field('threads')} placeholder="auto" data-testid="settings-threads" />
        </label>
        <label>
          KV cache type
          {choose('kvCacheType', report?.options.kvCacheTypes, 'settings-kv')}
        </label>
        <label>
          Checkpoint memory (MB per session)
          <input className="mono" {...field('checkpointMemory')} placeholder="auto" data-testid="settings-checkpoint-memory" />
        </label>
        <label>
          Sliding-window cache
          {choose('windowCache', report?.options.windowCaches, 'settings-window-cache', (k) => (k === 'auto' ? 'auto (by memory)' : k))}
        </label>
        <label>
          Flash attention
          {choose('flashAttention', report?.options.flashAttentions, 'settings-flash-attention', (f) => (f === 'auto' ? 'auto (where the device supports it)' : f))}
        </label>
        <label>
          Speculation
          {choose('speculation', report?.options.speculations, 'settings-speculation')}
        </label>
        <label>
          Draft model
          <select {...field('draftModel')} data-testid="settings-draft">
            <option value="">none</option>
            {draftFiles(models, form?.draftModel).map((file) => (
              <option key={file} value={file} title={file}>
                {basename(file)}
              </option>
            ))}
          </select>
        </label>
        <p className="muted small">Each is auto unless you choose: what this machine allows. Saving loads the model again with them.</p>
        <button type="submit" className="primary" disabled={!form || saving} data-testid="settings-save">
          {saving ? 'Loading the model…' : 'Save and reload the model'}
        </button>
      </form>
      {inUse && <InUse setup={inUse} />}
      {loading && !report && <p className="muted small">Asking the machine…</p>}
      {report && <Doctor report={report} />}
      <details className="settings-all" data-testid="settings-all">
        <summary className="small">All settings (settings.json)</summary>
        <SettingsFile />
      </details>
    </div>
  );
}

/** The models folder's files that could draft for the app's model (the catalog marks them), and the one set now even if it is not among them. */
function draftFiles(models: readonly ModelFile[], current: string | undefined): string[] {
  const files = models.filter((m) => m.draftFor !== undefined).map((m) => m.path);
  return current && !files.includes(current) ? [current, ...files] : files;
}

function InUse({ setup }: { setup: LocalSetup }) {
  return (
    <p className="small" data-testid="settings-in-use">
      In use now: <strong>{setupLine(setup)}</strong> · {n(setup.gpuLayers)} of {n(setup.totalLayers)} layers on the GPU · KV {setup.kvCacheType} ·{' '}
      {n(setup.threads)} thread{setup.threads === 1 ? '' : 's'}
      {setup.batchThreads !== undefined && ` (${n(setup.batchThreads)} for prefill)`} · {setup.sequences} sessions at once
    </p>
  );
}

function Doctor({ report }: { report: DoctorReport }) {
  const m = report.machine;
  const p = report.model;
  return (
    <>
      <section className="panel" data-testid="doctor-machine">
        <strong>This machine</strong>
        <dl className="doctor">
          <Row label="Backend" value={m.backend} why={m.why} testId="doctor-backend" />
          <Row label="Devices" value={m.devices.length ? m.devices.join(', ') : 'none'} />
          {m.vram && <Row label="VRAM" value={memory(m.vram)} />}
          <Row label="RAM" value={memory(m.ram)} />
          <Row label="CPU" value={`${n(m.cpuMathCores)} cores useful for math`} />
          <Row label="llama.cpp" value={m.llamaCpp} />
        </dl>
      </section>
      {p ? (
        <section className="panel" data-testid="doctor-plan">
          <strong title={p.path}>What Keel would use for {basename(p.path)}</strong>
          <span className="muted small">
            {' '}
            {bytes(p.sizeBytes)}, {n(p.totalLayers)} layers, trained for {n(p.trainContextSize)} tokens
          </span>
          {p.problem && (
            <div className="banner banner-error" role="alert" data-testid="doctor-problem">
              These settings cannot be used with this model: {p.problem}
            </div>
          )}
          <dl className="doctor">
            <Choose label="Context size" c={p.contextSize} shown={`${n(p.contextSize.value)} tokens × ${p.sequences} sessions`} testId="doctor-context" />
            <Choose label="GPU layers" c={p.gpuLayers} shown={`${n(p.gpuLayers.value)} of ${n(p.totalLayers)}`} />
            <Choose label="KV cache" c={p.kvCacheType} />
            <Choose label="Flash attention" c={p.flashAttention} />
            {p.speculation && <Choose label="Speculation" c={p.speculation} />}
            {p.draft && <Choose label="Draft model" c={p.draft} shown={p.draft.value === null ? 'none' : basename(p.draft.value)} testId="doctor-draft" />}
            <Choose label="Threads" c={p.threads} testId="doctor-threads" />
            {p.batchThreads && <Choose label="Prefill threads" c={p.batchThreads} testId="doctor-batch-threads" />}
            {p.batchSize && <Choose label="Batch size" c={p.batchSize} shown={`${n(p.batchSize.value)} tokens`} testId="doctor-batch-size" />}
            <CacheRows plan={p.cache} />
            {p.estimate && <Row label="Memory" value={`about ${bytes(p.estimate.ram)} RAM, ${bytes(p.estimate.vram)} VRAM`} why="node-llama-cpp's estimate" />}
          </dl>
        </section>
      ) : (
        <p className="muted small">Load a model to see what Keel would use for it.</p>
      )}
    </>
  );
}

/** The model's architecture and how its cache is kept reusable (checkpoints, the window cache), with their cost. */
function CacheRows({ plan }: { plan: ModelPlan['cache'] }) {
  const a = plan.architecture;
  const what = a.class === 'sliding window' ? `sliding window (${n(a.window ?? 0)} tokens)` : a.class;
  return (
    <>
      <Row label="Architecture" value={`${a.name}: ${what}`} testId="doctor-architecture" />
      <Choose label="Cache reuse" c={plan.strategy} testId="doctor-strategy" />
      {plan.budget && (
        <Row
          label="Checkpoints"
          value={`about ${bytes(plan.checkpointBytes ?? 0)} each, up to ${bytes(plan.budget.value)} per session`}
          why={plan.warning ?? plan.budget.why}
          testId="doctor-checkpoints"
        />
      )}
    </>
  );
}

function Row({ label, value, why, testId }: { label: string; value: string; why?: string; testId?: string }) {
  return (
    <>
      <dt>{label}</dt>
      <dd data-testid={testId}>
        <span className="mono">{value}</span>
        {why && <span className="muted small why">{why}</span>}
      </dd>
    </>
  );
}

function Choose<T>({ label, c, shown, testId }: { label: string; c: Choice<T>; shown?: string; testId?: string }) {
  return <Row label={label} value={shown ?? String(c.value)} why={c.why} testId={testId} />;
}

function memory(m: { total: number; free: number; usable: number }): string {
  return `${bytes(m.free)} free of ${bytes(m.total)} (${bytes(m.usable)} usable)`;
}
