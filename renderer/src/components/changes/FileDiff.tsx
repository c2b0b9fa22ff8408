import type { ChangedFile } from '../../../../main/contract.js';
import { diffClass } from '../../lib/resultBlocks.js';

/** What happened to a file, in words (the kind main reports). */
export function changeWords(file: ChangedFile): string {
  if (file.kind === 'renamed') return `renamed from ${file.from}`;
  if (file.kind === 'mode') return 'mode changed';
  return file.kind;
}

/** Why a file has no hunks to show, where it has none. */
function noDiff(file: ChangedFile): string {
  if (file.large) return 'Over the size limit: named, never copied, so it cannot be shown or put back.';
  if (file.binary) return 'Binary: no text to show.';
  if (file.kind === 'mode') return 'Only its mode changed.';
  if (file.kind === 'renamed') return 'Renamed with the same content.';
  return 'No lines to show.';
}

/**
 * One file's diff as main wrote it (the `diff` package's hunks, base to now): added and removed
 * lines highlighted, each hunk with its own Revert hunk button. A file created or deleted since
 * has one hunk that is the whole file: Revert file is its way back (a hunk would leave it empty).
 */
export function FileDiff({ file, busy, onRevertHunk }: { file: ChangedFile; busy: boolean; onRevertHunk(index: number, shown: string): void }) {
  if (file.hunks.length === 0) return <p className="muted small" data-testid="no-diff">{noDiff(file)}</p>;
  const byHunk = file.kind === 'modified' || file.kind === 'renamed';
  return (
    <div className="file-diff">
      {file.hunks.map((hunk, i) => {
        const [head, ...body] = hunk.split('\n');
        return (
          <div key={`${i}:${head}`} className="hunk" data-testid="hunk" data-index={i}>
            <div className="hunk-head row">
              <span className="mono small diff-hunk">{head}</span>
              <span className="grow" />
              {byHunk && (
                <button
                  type="button"
                  className="small"
                  disabled={busy}
                  onClick={() => onRevertHunk(i, hunk)}
                  title="Take back this hunk alone, leaving the file's other changes"
                  data-testid="revert-hunk"
                >
                  Revert hunk
                </button>
              )}
            </div>
            <div className="result-text mono">
              {body.map((line, j) => (
                <div key={j} className={`line ${diffClass(line) ?? ''}`}>
                  {line}
                </div>
              ))}
            </div>
          </div>
        );
      })}
    </div>
  );
}
