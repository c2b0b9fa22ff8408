import { useState, type KeyboardEvent } from 'react';
import type { TurnView } from '../../../../main/contract.js';
import { turnNumber, whatGoes, type HistoryAction } from '../../lib/historyText.js';
import type { Row } from '../../lib/transcriptRows.js';
import { MOD, withMod } from '../../shortcuts.js';
import { useKeel } from '../../stores/store.js';
import { Linkified } from '../common/IdLink.js';
import { PricedConfirm } from '../price/PricedConfirm.js';
import { usePricedAction } from '../price/usePricedAction.js';
import { Notes } from './Notes.js';
import { RewindFiles, useRewindPlan } from './RewindFiles.js';

const CONFIRM = { rewind: 'Rewind', edit: 'Send edited message', delete: 'Delete turn', undo: 'Undo' } as const satisfies Record<HistoryAction, string>;

/** The person's own words, then (apart, never looking like them) the notes Keel added. */
export function PersonMessage({ row }: { row: Extract<Row, { kind: 'person' }> }) {
  const { turn, pending } = row;
  const [action, setAction] = useState<HistoryAction>();
  const [text, setText] = useState('');
  const turns = useKeel((s) => s.transcript.view?.turns);
  const running = useKeel((s) => s.transcript.running);
  const sessionId = useKeel((s) => s.transcript.sessionId);
  // Rewind and edit can take the files back too: what they would do is asked of main first.
  const withFiles = action === 'rewind' || action === 'edit';
  const { plan, files, setFiles } = useRewindPlan(sessionId, turn.seq, withFiles);
  // What the action would re-read, asked once its confirmation opens; above the person's limit it asks once more.
  const priced = usePricedAction(action && { kind: action === 'delete' ? 'delete' : 'take back', turn: turn.seq }, action !== undefined);
  // A change to what the action would do withdraws a question asked about it.
  const changing = <T,>(set: (value: T) => void) => (value: T) => {
    priced.question?.cancel();
    set(value);
  };
  const go = () => {
    if (action === undefined || (action === 'edit' && text.trim() === '')) return;
    void priced.attempt(() => confirm(turn, action, text, files, setAction));
  };
  // A message main has stored, while nothing runs (a turn still open then was cut off by a quit).
  const number = turns && turnNumber(turns, turn.seq);
  const canAct = !pending && !running && turn.words !== undefined && turn.status !== 'undone' && (turns?.some((t) => t.seq === turn.seq) ?? false);
  const start = (next: HistoryAction) => {
    setText(turn.words ?? '');
    setAction(next);
  };
  return (
    <div className={`person turn-${turn.status}`} data-testid={`turn-${turn.seq}`} data-status={turn.status}>
      <div className="who">
        <span className="avatar">You</span>
        {number !== undefined && <span className="muted small">turn {number}</span>}
        {turn.status === 'undone' && <span className="tag">taken back</span>}
        {pending && <span className="tag amber">sending…</span>}
        {canAct && action === undefined && <TurnActions seq={turn.seq} start={start} />}
      </div>
      {action === 'edit' ? (
        <EditBox seq={turn.seq} text={text} setText={changing(setText)} confirm={() => plan && go()} cancel={() => setAction(undefined)} />
      ) : (
        turn.words !== undefined && turn.words !== '' && (
          <div className="words" data-testid="person-words">
            <Linkified text={turn.words} />
          </div>
        )
      )}
      {turn.notes.length > 0 && <Notes notes={turn.notes} />}
      {action !== undefined && canAct && (
        <div className="history-confirm" role="group" aria-label={CONFIRM[action]} data-testid={`turn-${turn.seq}-confirm`}>
          <p data-testid="history-confirm-text">{whatGoes(turns ?? [], turn.seq, action, files)}</p>
          {withFiles && <RewindFiles plan={plan} files={files} setFiles={changing(setFiles)} number={number} />}
          <PricedConfirm
            priced={priced}
            label={CONFIRM[action]}
            danger={action !== 'edit'}
            disabled={(action === 'edit' && text.trim() === '') || (withFiles && !plan)}
            onConfirm={go}
            onCancel={() => setAction(undefined)}
            testId={`turn-${turn.seq}`}
          />
        </div>
      )}
    </div>
  );
}

function confirm(turn: TurnView, action: HistoryAction, text: string, files: boolean, setAction: (a?: HistoryAction) => void): void {
  const t = useKeel.getState().transcript;
  if (action === 'edit' && text.trim() === '') return;
  setAction(undefined);
  if (action === 'rewind') void t.rewind(turn.seq, files);
  if (action === 'edit') void t.editAndResend(turn.seq, text, files);
  if (action === 'delete') void t.deleteTurn(turn.seq);
}

/** Rewind to here / Edit and resend / Delete: each asks first, saying what goes. */
function TurnActions({ seq, start }: { seq: number; start: (action: HistoryAction) => void }) {
  return (
    <span className="turn-actions">
      <button type="button" className="ghost small" onClick={() => start('rewind')} title="Take back this message and everything after it" data-testid={`turn-${seq}-rewind`}>
        Rewind to here
      </button>
      <button type="button" className="ghost small" onClick={() => start('edit')} title="Change this message and send it again in its place" data-testid={`turn-${seq}-edit`}>
        Edit and resend
      </button>
      <button type="button" className="ghost small" onClick={() => start('delete')} title="Take back this turn alone, keeping the later ones" data-testid={`turn-${seq}-delete`}>
        Delete
      </button>
    </span>
  );
}

function EditBox({ seq, text, setText, confirm, cancel }: { seq: number; text: string; setText(t: string): void; confirm(): void; cancel(): void }) {
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && withMod(e)) {
      e.preventDefault();
      confirm();
    }
    if (e.key === 'Escape') {
      // Escape here closes the editor (the window's Escape stops the model).
      e.stopPropagation();
      cancel();
    }
  };
  return (
    <textarea
      className="edit-words"
      value={text}
      onChange={(e) => setText(e.target.value)}
      onKeyDown={onKeyDown}
      rows={Math.min(10, Math.max(2, text.split('\n').length))}
      aria-label={`Edit turn ${seq}'s message (${MOD}+Enter sends)`}
      autoFocus
      data-testid={`turn-${seq}-edit-input`}
    />
  );
}
