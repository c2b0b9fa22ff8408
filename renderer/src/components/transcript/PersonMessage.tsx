import type { Row } from '../../lib/transcriptRows.js';
import { Linkified } from '../common/IdLink.js';
import { Notes } from './Notes.js';

/** The person's own words, then (apart, never looking like them) the notes Keel added. */
export function PersonMessage({ row }: { row: Extract<Row, { kind: 'person' }> }) {
  const { turn, pending } = row;
  return (
    <div className={`person turn-${turn.status}`} data-testid={`turn-${turn.seq}`} data-status={turn.status}>
      <div className="who">
        <span className="avatar">You</span>
        <span className="muted small">turn {turn.seq}</span>
        {turn.status === 'undone' && <span className="tag">taken back</span>}
        {pending && <span className="tag amber">sending…</span>}
      </div>
      {turn.words !== undefined && turn.words !== '' && (
        <div className="words" data-testid="person-words">
          <Linkified text={turn.words} />
        </div>
      )}
      {turn.notes.length > 0 && <Notes notes={turn.notes} />}
    </div>
  );
}
