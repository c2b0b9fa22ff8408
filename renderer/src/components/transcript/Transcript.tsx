import { useVirtualizer } from '@tanstack/react-virtual';
import { useLayoutEffect, useMemo, useRef, type ComponentType } from 'react';
import { displayTurns, pendingSubagents, transcriptRows, type Row } from '../../lib/transcriptRows.js';
import { useKeel } from '../../stores/store.js';
import { Linkified } from '../common/IdLink.js';
import { PersonMessage } from './PersonMessage.js';
import { ReplyText } from './ReplyText.js';
import { PendingSubagent } from './Subagent.js';
import { ToolCall } from './ToolCall.js';

type RowOf<K extends Row['kind']> = Extract<Row, { kind: K }>;

function Compacted({ row }: { row: RowOf<'compacted'> }) {
  return (
    <details className="compacted" data-testid="compacted">
      <summary>History compacted: the model now sees this summary instead of the turns before it</summary>
      <div className="result-text mono">
        {row.text.split('\n').map((line, i) => (
          <div key={i} className="line">
            <Linkified text={line} />
          </div>
        ))}
      </div>
    </details>
  );
}

function Working() {
  return (
    <div className="working muted small" data-testid="working">
      Keel is working… <span className="muted">Escape stops</span>
    </div>
  );
}

function Stopped() {
  return (
    <div className="stopped-mark muted small" data-testid="reply-stopped">
      Stopped: the reply was cut here.
    </div>
  );
}

const ROWS: { [K in Row['kind']]: ComponentType<{ row: RowOf<K> }> } = {
  compacted: Compacted,
  person: PersonMessage,
  text: ReplyText,
  tool: ToolCall,
  subagent: PendingSubagent,
  working: Working,
  stopped: Stopped,
};

const ESTIMATE: Record<Row['kind'], number> = { compacted: 48, person: 90, text: 80, tool: 160, subagent: 60, working: 32, stopped: 28 };

function RowView({ row }: { row: Row }) {
  const Component = ROWS[row.kind] as ComponentType<{ row: Row }>;
  return <Component row={row} />;
}

/**
 * The transcript, virtualized (only rows near the viewport are in the DOM, so thousands of
 * results stay smooth). Each turn is a person row and one row per reply part. It follows the
 * bottom while new text arrives unless the person scrolled up.
 */
export function Transcript() {
  const view = useKeel((s) => s.transcript.view);
  const live = useKeel((s) => s.transcript.live);
  const pending = useKeel((s) => s.transcript.pending);
  const running = useKeel((s) => s.transcript.running);
  const sessionId = useKeel((s) => s.transcript.sessionId);
  const known = useKeel((s) => s.subagents.known);
  const rows = useMemo(() => {
    const turns = displayTurns(view, live, pending);
    return transcriptRows(view, turns, running, pending, pendingSubagents(known, sessionId, turns));
  }, [view, live, pending, running, known, sessionId]);

  const scroller = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: (i) => ESTIMATE[rows[i]!.kind],
    getItemKey: (i) => rows[i]!.key,
    overscan: 6,
    initialRect: { width: 900, height: 900 },
  });
  const total = virtualizer.getTotalSize();

  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && atBottom.current && rows.length > 0) virtualizer.scrollToIndex(rows.length - 1, { align: 'end' });
  }, [rows, total, virtualizer]);

  if (!view && pending === undefined) return null;
  if (rows.length === 0) {
    return (
      <div className="transcript empty" data-testid="transcript">
        <p className="muted">Nothing yet. Write the first message below.</p>
      </div>
    );
  }
  return (
    <div
      className="transcript"
      ref={scroller}
      data-testid="transcript"
      onScroll={(e) => {
        const el = e.currentTarget;
        atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
      }}
    >
      <div className="transcript-inner" style={{ height: total }}>
        {virtualizer.getVirtualItems().map((item) => {
          const row = rows[item.index]!;
          return (
            <div key={item.key} className="row" data-index={item.index} ref={virtualizer.measureElement} style={{ transform: `translateY(${item.start}px)` }}>
              <RowView row={row} />
            </div>
          );
        })}
      </div>
    </div>
  );
}
