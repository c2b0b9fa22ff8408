import type { ReactNode } from 'react';
import type { RecallView } from '../../../../main/contract.js';
import { dateTime } from '../../lib/format.js';
import { Linkified } from '../common/IdLink.js';

/** The result's kind in words; a capped result says what the model got and what is here. */
function kindWords(view: RecallView): string {
  if (view.elided) return `capped: the model got the head and tail, ${view.elided.count.toLocaleString('en-US')} lines elided; the full text is below`;
  const words: Record<string, string> = {
    full: 'full text', stub: 'stub (unchanged since an earlier read)', same: 'same as an earlier result', error: 'error',
    recall: 'recall of a stored result', change: 'change (a diff)',
  };
  return words[view.kind] ?? view.kind;
}

/** What `recall()` says about a result, as it says it. */
export function RecallMeta({ view }: { view: RecallView }) {
  const rows: [string, ReactNode][] = [
    ['Tool', view.tool],
    ['Arguments', <code key="a" className="mono">{JSON.stringify(view.args)}</code>],
    ['Kind', kindWords(view)],
    ['Path as given', view.pathGiven ?? '—'],
    ['Resolved path', view.pathResolved ?? '—'],
    ['sha-256', view.fileHash ? <code key="h" className="mono" title={view.fileHash}>{view.fileHash}</code> : '—'],
    ['Inserted at', dateTime(view.insertedAt)],
    [
      'In the request being built',
      view.inRequest ? <span key="y" className="tag ok">Yes</span> : <span key="n" className="tag">No</span>,
    ],
  ];
  return (
    <section className="recall-meta" data-testid="inspector-meta">
      <h4>
        <span className="tool-name">{view.tool}</span> <span className="mono">{view.id}</span>{' '}
        {view.pathGiven && <span className="mono muted">{view.pathGiven}</span>}
      </h4>
      <table>
        <tbody>
          {rows.map(([label, value]) => (
            <tr key={label}>
              <th>{label}</th>
              <td>{value}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <details className="as-sent">
        <summary>Text as the model got it</summary>
        <div className="result-text mono" data-testid="inspector-inserted">
          {view.inserted.split('\n').map((line, i) => (
            <div key={i} className="line">
              <Linkified text={line} />
            </div>
          ))}
        </div>
      </details>
    </section>
  );
}
