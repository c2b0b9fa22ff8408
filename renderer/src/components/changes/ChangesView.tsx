import { useEffect } from 'react';
import type { ChangedFile, ChangesView as View } from '../../../../main/contract.js';
import { setSlice, useKeel } from '../../stores/store.js';
import { changeWords, FileDiff } from './FileDiff.js';

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The base picker: the session's start, or the start of any turn whose files were recorded. */
function SincePicker({ view, since }: { view: View | undefined; since: number | undefined }) {
  const sessionId = useKeel((s) => s.transcript.sessionId);
  const turns = view?.turns ?? [];
  return (
    <label className="small">
      since{' '}
      <select
        value={since === undefined ? '' : String(since)}
        onChange={(e) => sessionId !== undefined && void useKeel.getState().changes.load(sessionId, e.target.value === '' ? undefined : Number(e.target.value))}
        data-testid="changes-since"
      >
        <option value="">the session began</option>
        {turns.map((t) => (
          <option key={t.seq} value={String(t.seq)}>
            turn {t.seq} began{t.words ? `: ${clip(t.words, 40)}` : ''}
          </option>
        ))}
      </select>
    </label>
  );
}

function ChangedFileCard({ file, busy }: { file: ChangedFile; busy: boolean }) {
  const { revertFile, revertHunk } = useKeel.getState().changes;
  const notes = [file.binary && 'binary', file.large && 'over the size limit', file.link && 'a link'].filter(Boolean);
  return (
    <section className="panel changed-file" data-testid="changed-file" data-path={file.path}>
      <header className="row">
        <strong className="mono">{file.path}</strong>
        <span className={`tag ${file.kind === 'created' ? 'ok' : file.kind === 'deleted' ? 'amber' : ''}`} data-testid="change-kind">
          {changeWords(file)}
        </span>
        {notes.map((n) => (
          <span key={String(n)} className="tag">{n}</span>
        ))}
        <span className="grow" />
        <button
          type="button"
          disabled={busy || file.large}
          onClick={() => void revertFile(file.path)}
          title={file.large ? 'It was never copied, so it cannot be put back' : 'Put this file back as it was at the start chosen above'}
          data-testid="revert-file"
        >
          Revert file
        </button>
      </header>
      <FileDiff file={file} busy={busy} onRevertHunk={(i, shown) => void revertHunk(file.path, i, shown)} />
    </section>
  );
}

/**
 * The Changes tab: every file the session changed since it began (or since a turn began), as it is
 * now, with its diff and the buttons to put a file or one hunk back. A revert is recorded as the
 * session's own change, so a later rewind with files still works. The files are main's.
 */
export function ChangesView() {
  const sessionId = useKeel((s) => s.transcript.sessionId);
  const { view, since, busy, error, loading } = useKeel((s) => s.changes);
  // Main refuses a revert while the model works (it could be changing the same file): the buttons wait.
  const running = useKeel((s) => s.transcript.running);
  const mine = view && view.sessionId === sessionId ? view : undefined;
  useEffect(() => {
    if (sessionId === undefined) return;
    const s = useKeel.getState().changes;
    void s.load(sessionId, s.sessionId === sessionId ? s.since : undefined);
  }, [sessionId]);
  const from = since === undefined ? 'since the session began' : `since turn ${since} began`;
  return (
    <div className="changes-view" data-testid="changes-view">
      <header className="row">
        <strong>Changes</strong>
        <SincePicker view={mine} since={since} />
        <span className="muted small" data-testid="changes-count">
          {mine && !mine.unavailable && (mine.files.length === 0 ? `No file changed ${from}.` : `${mine.files.length} file${mine.files.length === 1 ? '' : 's'} changed ${from}.`)}
          {!mine && loading && 'Reading the checkpoints…'}
        </span>
      </header>
      {error && (
        <div className="banner banner-error" role="alert" data-testid="changes-error">
          <span className="banner-text">{error}</span>
          <button type="button" className="ghost small" onClick={() => setSlice('changes', { error: undefined })}>
            Dismiss
          </button>
        </div>
      )}
      {mine?.unavailable && (
        <p className="muted" data-testid="changes-unavailable">
          {mine.unavailable}
        </p>
      )}
      {mine?.files.map((file) => <ChangedFileCard key={file.path} file={file} busy={busy || running} />)}
    </div>
  );
}
