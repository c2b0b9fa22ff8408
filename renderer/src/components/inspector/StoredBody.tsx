import type { RecallView } from '../../../../main/contract.js';
import { n } from '../../lib/format.js';
import { useKeel } from '../../stores/store.js';
import { Linkified } from '../common/IdLink.js';

/**
 * The full stored body, 2,000 lines a page, exactly as stored: no line numbers of the view's own
 * (a read's body already carries its `N: ` numbers; the range above says where a page is).
 * Next/Prev ask main for a page.
 */
export function StoredBody({ view }: { view: RecallView }) {
  const first = view.lines.length ? view.offset : 0;
  const last = view.offset + view.lines.length - 1;
  const hasPrev = view.offset > 1;
  const hasNext = view.offset + view.pageSize <= view.totalLines;
  return (
    <section className="stored-body">
      <header className="row">
        <strong>Stored body</strong>
        <span className="muted small" data-testid="inspector-range">
          {view.totalLines === 0 ? 'empty' : `lines ${n(first)}-${n(last)} of ${n(view.totalLines)}`}
        </span>
        <span className="grow" />
        <button type="button" disabled={!hasPrev} onClick={() => void useKeel.getState().inspector.prev()} data-testid="inspector-prev">
          ‹ Prev
        </button>
        <button type="button" disabled={!hasNext} onClick={() => void useKeel.getState().inspector.next()} data-testid="inspector-next">
          Next ›
        </button>
      </header>
      <div className="body-lines mono" data-testid="inspector-body">
        {view.lines.map((line, i) => (
          <div key={view.offset + i} className="line">
            <span className="lt">
              <Linkified text={line} />
            </span>
          </div>
        ))}
      </div>
    </section>
  );
}
