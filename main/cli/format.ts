import path from 'node:path';
import type { RequestRow } from '../core/state/types.js';
import type { Writer } from './io.js';

export interface Column {
  title: string;
  /** Numbers read best right-aligned. */
  right?: boolean;
}

/** A plain-text table: a header row, a rule, then the rows, columns padded to their widest cell. */
export function formatTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string {
  const widths = columns.map((c, i) => Math.max(c.title.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    columns
      .map((c, i) => (c.right ? (cells[i] ?? '').padStart(widths[i]) : (cells[i] ?? '').padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.title)), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n') + '\n';
}

/** Cuts a long cell to `max` characters, marking the cut. */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length <= max ? flat : flat.slice(0, max - 1) + '…';
}

/** An ISO timestamp as local `YYYY-MM-DD HH:MM`. */
export function localTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

export function ms(value: number): string {
  return String(Math.round(value));
}

/** One request's cache figures on one line, as the conversation shows them after each reply. */
export function cacheLine(r: RequestRow): string {
  const figures = `prompt ${r.promptTokens} tokens, reused ${r.reusedTokens}, new ${r.newTokens}, prefill ${ms(r.prefillMs)} ms`;
  return `[cache] ${r.kind}: ${figures}${r.cause ? ` (cause: ${r.cause})` : ''}`;
}

/**
 * A model-loading progress bar on `err`, fed by node-llama-cpp's onLoadProgress: redrawn in place
 * on a terminal; elsewhere (logs, pipes) one line when loading starts, one at each quarter, and
 * "Loaded" when it ends. A load that fails (`failed`) never says "Loaded": the line is ended so
 * the error reads on its own.
 */
export function progressBar(err: Writer, file: string): { update(fraction: number): void; done(): void; failed(): void } {
  const name = path.basename(file);
  const width = 30;
  let lastDrawn = -1;
  let finished = false;
  if (!err.isTTY) err.write(`Loading ${name}…\n`);
  const draw = (fraction: number) => {
    const f = Math.max(0, Math.min(1, fraction));
    const percent = Math.floor(f * 100);
    if (percent === lastDrawn) return;
    lastDrawn = percent;
    const filled = Math.round(f * width);
    err.write(`\rLoading ${name} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(percent).padStart(3)}%`);
  };
  let quarter = 0;
  return {
    update(fraction) {
      if (finished) return;
      if (err.isTTY) {
        draw(fraction);
      } else if (Math.floor(fraction * 4) > quarter && fraction < 1) {
        quarter = Math.floor(fraction * 4);
        err.write(`Loading ${name}: ${quarter * 25}%\n`);
      }
    },
    failed() {
      if (finished) return;
      finished = true;
      if (err.isTTY && lastDrawn >= 0) err.write('\n');
    },
    done() {
      if (finished) return;
      finished = true;
      if (err.isTTY) {
        draw(1);
        err.write('\n');
      } else {
        err.write(`Loaded ${name}.\n`);
      }
    },
  };
}
