import { useState, type MouseEvent } from 'react';
import type { ReplyPart, TurnView } from '../../../../main/contract.js';
import type { Row } from '../../lib/transcriptRows.js';
import type { SubagentState } from '../../stores/slices/subagents.js';
import { useKeel } from '../../stores/store.js';
import { RequestTable } from '../cache/RequestTable.js';
import { Linkified } from '../common/IdLink.js';
import { Notes } from './Notes.js';
import { Markdown } from './ReplyText.js';
import { ToolCard } from './ToolCard.js';

const STATE_TEXT = {
  waiting: 'waiting for a place',
  running: 'running',
  answered: 'answered',
  failed: 'failed',
} as const satisfies Record<SubagentState, string>;
const STATE_CLASS = { waiting: 'amber', running: 'amber', answered: 'ok', failed: 'bad' } as const satisfies Record<SubagentState, string>;

/**
 * A task call's subagent, inside its card: what it is for, where it stands, and its own transcript
 * and cache rows one click away (read-only: they are another session's, reached from here only).
 */
export function Subagent({ childId, description }: { childId?: number; description?: string }) {
  const info = useKeel((s) => (childId === undefined ? undefined : s.subagents.known[childId]));
  const open = useKeel((s) => childId !== undefined && s.subagents.open[childId] !== undefined);
  const nestedId = childId === undefined ? undefined : `subagent-${childId}-transcript`;
  return (
    <div className="subagent" data-testid="subagent" data-child={childId}>
      <div className="subagent-head">
        <span className="subagent-label muted small">Subagent</span>
        <span className="subagent-description" data-testid="subagent-description">
          {description ?? info?.title ?? 'a task'}
        </span>
        {info && (
          <span className={`tag ${STATE_CLASS[info.state]}`} data-testid="subagent-state">
            {STATE_TEXT[info.state]}
          </span>
        )}
        {childId !== undefined && (
          <button
            type="button"
            className="ghost small"
            aria-expanded={open}
            aria-controls={nestedId}
            onClick={() => void useKeel.getState().subagents.toggle(childId)}
            data-testid="subagent-open"
          >
            {open ? 'Close transcript' : 'Open transcript'}
          </button>
        )}
      </div>
      {open && childId !== undefined && <NestedTranscript childId={childId} id={nestedId!} />}
    </div>
  );
}

/** A subagent still at work, before its task call's card exists (the call's result is its answer). */
export function PendingSubagent({ row }: { row: Extract<Row, { kind: 'subagent' }> }) {
  return (
    <div className="tool" data-testid={`subagent-pending-${row.childId}`}>
      <div className="tool-head">
        <span className="tool-name">task</span>
      </div>
      <Subagent childId={row.childId} />
    </div>
  );
}

/** The subagent's turns (its message, its calls with their ids, its answer) and its requests' cache rows. */
function NestedTranscript({ childId, id }: { childId: number; id: string }) {
  const nested = useKeel((s) => s.subagents.open[childId]);
  const view = nested?.view;
  return (
    // Its #ids are its own session's: the Recall inspector shows the open session's, so they open nothing here.
    <section className="subagent-nested" id={id} aria-label="The subagent's transcript" data-testid="subagent-transcript" onClickCapture={keepIdsHere} onAuxClickCapture={keepIdsHere}>
      {!view ? (
        <div className="muted small">Loading…</div>
      ) : (
        view.turns.map((turn) => <NestedTurn key={turn.seq} childId={childId} turn={turn} />)
      )}
      {view?.running && <div className="muted small">The subagent is working…</div>}
      <div className="subagent-cache" data-testid="subagent-cache">
        <div className="muted small">Its requests: {nested?.requests.length ?? 0}</div>
        {nested && nested.requests.length > 0 && <RequestTable rows={nested.requests} />}
      </div>
    </section>
  );
}

function keepIdsHere(e: MouseEvent<HTMLElement>): void {
  if ((e.target as Element).closest('.id-link')) {
    e.preventDefault();
    e.stopPropagation();
  }
}

function NestedTurn({ childId, turn }: { childId: number; turn: TurnView }) {
  return (
    <div className="subagent-turn" data-testid={`subagent-turn-${turn.seq}`}>
      {turn.words !== undefined && turn.words !== '' && (
        <div className="words" data-testid="subagent-words">
          <Linkified text={turn.words} />
        </div>
      )}
      {turn.notes.length > 0 && <Notes notes={turn.notes} />}
      {turn.parts.map((part, i) => (
        <NestedPart key={i} childId={childId} seq={turn.seq} index={i} part={part} />
      ))}
    </div>
  );
}

function NestedPart({ childId, seq, index, part }: { childId: number; seq: number; index: number; part: ReplyPart }) {
  const [unfolded, setUnfolded] = useState(false);
  if (part.type === 'text') {
    return (
      <div className="reply" data-testid="subagent-reply">
        <Markdown text={part.text} />
      </div>
    );
  }
  return (
    <ToolCard
      tool={part.tool}
      testId={`subagent-${childId}-turn-${seq}-part-${index}`}
      scope={`subagent-${childId}-`}
      unfolded={unfolded}
      onToggle={() => setUnfolded((u) => !u)}
    />
  );
}
