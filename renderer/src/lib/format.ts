/** Display helpers: they format numbers main gave; they never compute tokens or hygiene. */
const integer = new Intl.NumberFormat('en-US');
const oneDecimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

export const n = (value: number): string => integer.format(value);

/** Milliseconds to one decimal: timings are measured, not exact to the microsecond. */
export const ms = (value: number): string => oneDecimal.format(value);

export function seconds(ms: number): string {
  if (ms < 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m} min ${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')} s`;
}

export function percent(part: number, whole: number): string {
  return whole > 0 ? `${((part / whole) * 100).toFixed(1)}%` : '—';
}

export function basename(path: string): string {
  return path.split(/[\\/]/).filter(Boolean).pop() ?? path;
}

/** A model file's name without folder or `.gguf`. */
export function modelName(path: string): string {
  return basename(path).replace(/\.gguf$/i, '');
}

export function shortDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short' });
}

export function dateTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'medium' });
}

export function bytes(size: number): string {
  if (size >= 1e9) return `${(size / 1e9).toFixed(1)} GB`;
  if (size >= 1e6) return `${(size / 1e6).toFixed(0)} MB`;
  return `${n(size)} B`;
}

/** Arguments as one compact line: strings shown bare, the rest as JSON. */
export function argsLine(args: unknown): string {
  if (args && typeof args === 'object' && !Array.isArray(args)) {
    return Object.entries(args as Record<string, unknown>)
      .map(([k, v]) => `${k} ${typeof v === 'string' ? oneLine(v) : JSON.stringify(v)}`)
      .join('  ');
  }
  return JSON.stringify(args) ?? '';
}

function oneLine(s: string): string {
  const lines = s.split('\n');
  if (lines.length > 1) return `${lines.length} lines`;
  return s.length > 120 ? s.slice(0, 117) + '…' : s;
}

/** What a loaded model runs on, as the status bar shows it: `CUDA · 32,768 ctx`. */
export function setupLine(setup: { backend: string; contextSize: number }): string {
  return `${setup.backend} · ${n(setup.contextSize)} ctx`;
}
