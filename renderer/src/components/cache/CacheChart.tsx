import { useLayoutEffect, useRef, useState, type RefObject } from 'react';
import type { RequestRow } from '../../../../main/contract.js';
import { modelName, n, seconds } from '../../lib/format.js';

export const PLOT_H = 180;
/** The plot's left edge (the token axis' labels sit to its left) and the room kept on the right. */
const LEFT = 48;
const RIGHT = 12;
/** Each request's slot: the bar plus the space around it. It grows with the room, within these. */
const MIN_SLOT = 30;
const MAX_SLOT = 96;
const PREFILL_H = 36;
const FONT_PX = 10.5;
/** Label rows: a model run's label (with its box) and a break's label. */
const RUN_ROW = 20;
const BREAK_ROW = 15;

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

let measureContext: CanvasRenderingContext2D | null | undefined;

/**
 * The width a label takes in the chart's font: measured by a canvas where the page has one,
 * else a generous estimate (so a label is never given less room than it needs).
 */
export function textWidth(text: string, bold = false): number {
  if (measureContext === undefined) {
    const jsdom = typeof navigator !== 'undefined' && /jsdom/i.test(navigator.userAgent);
    measureContext = typeof document === 'undefined' || jsdom ? null : document.createElement('canvas').getContext('2d');
  }
  if (measureContext) {
    measureContext.font = `${bold ? 600 : 400} ${FONT_PX}px ${getComputedStyle(document.body).fontFamily || 'sans-serif'}`;
    return Math.ceil(measureContext.measureText(text).width * 1.04) + 1;
  }
  return Math.ceil(text.length * (bold ? 6.8 : 6.3));
}

/**
 * Puts labels in rows so that none overlaps another: each goes into the first row where it fits
 * after what is already there. Every label keeps its full text.
 */
export function stackLabels<T extends { x: number; width: number }>(labels: T[], spacing = 6): (T & { lane: number })[] {
  const ends: number[] = [];
  return labels.map((label) => {
    let lane = ends.findIndex((end) => end + spacing <= label.x);
    if (lane < 0) lane = ends.length;
    ends[lane] = label.x + label.width;
    return { ...label, lane };
  });
}

/** The element's content width, following resizes (0 where nothing lays out, as in jsdom). */
function useWidth(ref: RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    setWidth(el.clientWidth);
    const observer = new ResizeObserver((entries) => setWidth(Math.floor(entries[0]?.contentRect.width ?? el.clientWidth)));
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref]);
  return width;
}

function ticks(max: number): number[] {
  if (max <= 0) return [];
  const step = Math.pow(10, Math.floor(Math.log10(max)));
  const unit = max / step > 5 ? step * 2 : max / step > 2 ? step : step / 2;
  const out: number[] = [];
  for (let t = unit; t <= max; t += unit) out.push(t);
  return out;
}

const requestsLabel = (from: number, to: number) => (from === to ? `request ${from + 1}` : `requests ${from + 1}–${to + 1}`);

/**
 * Prompt tokens per request as stacked bars: reused from the KV cache (blue-grey) under evaluated
 * anew (amber); each break is a dashed line labelled with its cause; prefill time below. Plain SVG,
 * as wide as its panel (it scrolls sideways when the requests need more); labels are never cut:
 * those that would overlap go on a row of their own.
 */
export function CacheChart({ rows }: { rows: RequestRow[] }) {
  const scroller = useRef<HTMLDivElement>(null);
  const room = useWidth(scroller);
  const max = Math.max(0, ...rows.map((r) => r.reusedTokens + r.newTokens));
  const maxPrefill = Math.max(0, ...rows.map((r) => r.prefillMs));

  const count = Math.max(rows.length, 1);
  const slot = Math.min(MAX_SLOT, Math.max(MIN_SLOT, room > 0 ? (room - LEFT - RIGHT) / count : MIN_SLOT + 2));
  const barW = Math.round(Math.min(40, Math.max(16, slot * 0.6)));
  const edge = (i: number) => LEFT + i * slot;
  const x = (i: number) => edge(i) + (slot - barW) / 2;
  const barsRight = edge(rows.length) + RIGHT;
  const wide = Math.max(room, barsRight);

  const runs = stackLabels(
    runsOfModel(rows).map((run) => {
      const text = `${modelName(run.model) || 'model'} · ${requestsLabel(run.from, run.to)}`;
      const span = (run.to - run.from + 1) * slot - 2;
      return { ...run, text, x: edge(run.from) + 1, width: Math.max(span, textWidth(text) + 12) };
    }),
    2,
  );
  const breaks = stackLabels(
    rows.flatMap((row, i) => {
      if (!row.cause) return [];
      const text = `${row.cause} · request ${i + 1}`;
      const width = textWidth(text, true);
      const line = edge(i);
      // Near the right edge, the label goes to the left of its line when there is room there.
      const leftOf = line + 4 + width > wide && line - 4 - width >= LEFT;
      return [{ index: i, text, x: leftOf ? line - 4 - width : line + 4, width, leftOf }];
    }),
    10,
  );
  const labelsRight = Math.max(0, ...runs.map((l) => l.x + l.width), ...breaks.map((l) => l.x + l.width));
  const width = Math.ceil(Math.max(wide, labelsRight + RIGHT));

  const runLanes = Math.max(1, ...runs.map((l) => l.lane + 1));
  const breakLanes = breaks.length ? Math.max(...breaks.map((l) => l.lane + 1)) : 0;
  const breakTop = 4 + runLanes * RUN_ROW + 2;
  const top = breakTop + breakLanes * BREAK_ROW + 10;
  const base = top + PLOT_H;
  const prefillBottom = base + 32 + PREFILL_H;
  const height = prefillBottom + 6;
  const breakAt = new Map(breaks.map((label) => [label.index, label]));

  return (
    <div className="chart-scroll" ref={scroller}>
      <svg width={width} height={height} className="cache-chart" data-testid="cache-chart" role="img" aria-label="Prompt tokens per request: reused from the KV cache and evaluated anew">
        {ticks(max).map((t) => {
          const y = base - (t / max) * PLOT_H;
          return (
            <g key={t} className="tick">
              <line x1={LEFT} x2={width - RIGHT} y1={y} y2={y} />
              <text x={LEFT - 6} y={y + 4} textAnchor="end">
                {t >= 1000 ? `${t / 1000}k` : t}
              </text>
            </g>
          );
        })}
        {runs.map((run) => {
          const y = 4 + run.lane * RUN_ROW;
          return (
            <g key={`${run.from}-${run.model}`} className="model-run" data-testid="cache-model-run">
              <title>{`${run.model} · ${requestsLabel(run.from, run.to)}`}</title>
              <rect x={run.x} y={y} width={run.width} height={16} rx={3} />
              <text x={run.x + 6} y={y + 12}>
                {run.text}
              </text>
            </g>
          );
        })}
        {rows.map((row, i) => {
          const { reused, fresh } = barHeights(row, max);
          const cx = x(i);
          const label = breakAt.get(i);
          const prefillH = maxPrefill > 0 ? (row.prefillMs / maxPrefill) * PREFILL_H : 0;
          return (
            <g key={row.id} data-testid={`cache-bar-${i + 1}`} data-request-id={row.id} className={row.cause ? 'bar break' : 'bar'}>
              <title>
                {`Request ${i + 1}: ${n(row.promptTokens)} prompt tokens, ${n(row.reusedTokens)} reused, ${n(row.newTokens)} new, prefill ${seconds(row.prefillMs)}${row.cause ? `; break: ${row.cause}` : ''}`}
              </title>
              {row.cause && label && (
                <g className="break-mark">
                  <line x1={edge(i)} x2={edge(i)} y1={breakTop - 2} y2={height - 2} />
                  <text x={label.leftOf ? label.x + label.width : label.x} y={breakTop + label.lane * BREAK_ROW + 11} textAnchor={label.leftOf ? 'end' : 'start'} data-testid={`cache-break-${i + 1}`}>
                    {row.cause} · request {i + 1}
                  </text>
                </g>
              )}
              <rect className="reused" data-testid={`bar-reused-${i + 1}`} x={cx} width={barW} y={base - reused} height={reused} />
              <rect className="fresh" data-testid={`bar-new-${i + 1}`} x={cx} width={barW} y={base - reused - fresh} height={fresh} />
              <text className={row.cause ? 'xlabel strong' : 'xlabel'} x={cx + barW / 2} y={base + 14} textAnchor="middle">
                {i + 1}
              </text>
              {maxPrefill > 0 && <rect className="prefill" x={cx} width={barW} y={prefillBottom - prefillH} height={prefillH} />}
              {maxPrefill > 0 && row.prefillMs >= maxPrefill * 0.2 && (
                <text className="prefill-label" x={cx + barW / 2} y={prefillBottom - prefillH - 3} textAnchor="middle">
                  {(row.prefillMs / 1000).toFixed(1)}
                </text>
              )}
            </g>
          );
        })}
        <text x={4} y={prefillBottom - 14} className="axis-label">
          prefill
        </text>
        <text x={4} y={prefillBottom - 2} className="axis-label">
          (s)
        </text>
        <line className="baseline" x1={LEFT} x2={width - RIGHT} y1={base} y2={base} />
      </svg>
    </div>
  );
}
