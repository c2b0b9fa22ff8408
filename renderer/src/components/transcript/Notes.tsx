import type { NoteView } from '../../../../main/contract.js';
import { Linkified } from '../common/IdLink.js';

const LABEL = {
  date: 'date',
  mode: 'mode',
  instructions: 'instructions',
  plan: 'plan',
  server: 'MCP server',
  hook: 'UserPromptSubmit hook',
  reverted: 'your revert',
} as const satisfies Record<NoteView['kind'], string>;

/** What Keel appended to the person's message: apart from their words, labelled as Keel's. */
export function Notes({ notes }: { notes: NoteView[] }) {
  return (
    <section className="notes" data-testid="notes" aria-label="Notes, added by Keel">
      <header>
        <span className="notes-title">Notes, added by Keel</span>
        <span className="muted small">sent with this message</span>
      </header>
      {notes.map((note, i) => (
        <div key={i} className={`note note-${note.kind}`} data-testid="note">
          <span className="note-kind">{LABEL[note.kind]}</span>
          <span className="note-text">
            <Linkified text={note.text.trim()} />
          </span>
        </div>
      ))}
    </section>
  );
}
