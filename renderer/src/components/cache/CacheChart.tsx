import type { RequestRow } from '../../../../main/contract.js';
import { modelName, n, seconds } from '../../lib/format.js';

export const BAR_W = 22;
export const GAP = 10;
export const PLOT_H = 180;
const LEFT = 48;
const TOP = 56;
const PREFILL_H = 36;

/** Bar heights in the plot, proportional to the tokens main reported (reused below, new on top). */
export function barHeights(row: RequestRow, max: number): { reused: number; fresh: number } {
  if (max <= 0) return { reused: 0, fresh: 0 };
  return { reused: (row.reusedTokens / max) * PLOT_H, fresh: (row.newTokens / max) * PLOT_H };
}

function runsOfModel(rows: RequestRow[]): { model: string; from: number; to: number }[] {
  const runs: { model: string; from: number; to: number }[] = [];
  rows.forEach((row, i) => {
    const last = runs.at(-1);
    if (last && last.model === row.model) last.to = i;
    else runs.push({ model: row.model, from: i, to: i });
  });
  return runs;
}

/** Cuts a label to about the width it has (the chart's font is ~6 px a character). */
function fit(label: string, width: number): string {
  const chars = Math.floor(width / 6);
  if (label.length <= chars) return label;
  return chars > 1 ? label.slice(0, chars - 1) + '…' : '';
}

function ticks(max: number): number[] {
  if (max <= 0) return [];
  const step = Math.pow(10, Math.floor(Math.log10(max)));
  const unit = max / step > 5 ? step * 2 : max / step > 2 ? step : step / 2;
  const out: number[] = [];
  for (let t = unit; t <= max; t += unit) out.push(t);
  return out;
}

/**
 * Prompt tokens per request as stacked bars: reused from the KV cache (blue-grey) under evaluated
 * anew (amber); each break is a dashed line labelled with its cause; prefill time below. Plain SVG.
 */
export function CacheChart({ rows }: { rows: RequestRow[] }) {
  const max = Math.max(0, ...rows.map((r) => r.reusedTokens + r.newTokens));
  const maxPrefill = Math.max(0, ...rows.map((r) => r.prefillMs));
  const x = (i: number) => LEFT + GAP + i * (BAR_W + GAP);
  const width = x(rows.length) + GAP;
  const base = TOP + PLOT_H;
  const height = base + 24 + PREFILL_H + 18;
  return (
    <div className="chart-scroll">
      <svg width={width} height={height} className="cache-chart" data-testid="cache-chart" role="img" aria-label="Prompt tokens per request: reused from the KV cache and evaluated anew">
        {ticks(max).map((t) => {
          const y = base - (t / max) * PLOT_H;
          return (
            <g key={t} className="tick">
              <line x1={LEFT} x2={width} y1={y} y2={y} />
              <text x={LEFT - 6} y={y + 4} textAnchor="end">
                {t >= 1000 ? `${t / 1000}k` : t}
              </text>
            </g>
          );
        })}
        {runsOfModel(rows).map((run) => {
          const w = (run.to - run.from + 1) * (BAR_W + GAP) - 2;
          return (
            <g key={`${run.from}-${run.model}`} className="model-run">
              <title>{`${run.model} · requests ${run.from + 1}–${run.to + 1}`}</title>
              <rect x={x(run.from) - GAP / 2} y={4} width={w} height={16} rx={3} />
              <text x={x(run.from)} y={16}>
                {fit(`${modelName(run.model) || 'model'} · requests ${run.from + 1}–${run.to + 1}`, w - 8)}
              </text>
            </g>
          );
        })}
        {rows.map((row, i) => {
          const { reused, fresh } = barHeights(row, max);
          const cx = x(i);
          return (
            <g key={row.id} data-testid={`cache-bar-${i + 1}`} data-request-id={row.id} className={row.cause ? 'bar break' : 'bar'}>
              <title>
                {`Request ${i + 1}: ${n(row.promptTokens)} prompt tokens, ${n(row.reusedTokens)} reused, ${n(row.newTokens)} new, prefill ${seconds(row.prefillMs)}${row.cause ? `; break: ${row.cause}` : ''}`}
              </title>
              {row.cause && (
                <g className="break-mark">
                  <line x1={cx - GAP / 2} x2={cx - GAP / 2} y1={TOP - 30} y2={height - 4} />
                  <text x={cx - GAP / 2 + 3} y={TOP - 20} data-testid={`cache-break-${i + 1}`}>
                    {row.cause} · request {i + 1}
                  </text>
                </g>
              )}
              <rect className="reused" data-testid={`bar-reused-${i + 1}`} x={cx} width={BAR_W} y={base - reused} height={reused} />
              <rect className="fresh" data-testid={`bar-new-${i + 1}`} x={cx} width={BAR_W} y={base - reused - fresh} height={fresh} />
              <text className={row.cause ? 'xlabel strong' : 'xlabel'} x={cx + BAR_W / 2} y={base + 14} textAnchor="middle">
                {i + 1}
              </text>
              {maxPrefill > 0 && (
                <rect className="prefill" x={cx} width={BAR_W} y={height - 18 - (row.prefillMs / maxPrefill) * PREFILL_H} height={(row.prefillMs / maxPrefill) * PREFILL_H} />
              )}
              {maxPrefill > 0 && row.prefillMs >= maxPrefill * 0.2 && (
                <text className="prefill-label" x={cx + BAR_W / 2} y={height - 20 - (row.prefillMs / maxPrefill) * PREFILL_H} textAnchor="middle">
                  {(row.prefillMs / 1000).toFixed(1)}
                </text>
              )}
            </g>
          );
        })}
        <text x={4} y={height - 20} className="axis-label">
          prefill
        </text>
        <text x={4} y={height - 8} className="axis-label">
          (s)
        </text>
        <line className="baseline" x1={LEFT} x2={width} y1={base} y2={base} />
      </svg>
    </div>
  );
}
