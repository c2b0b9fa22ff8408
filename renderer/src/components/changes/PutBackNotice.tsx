import { useKeel } from '../../stores/store.js';

const list = (paths: string[]) => paths.join(', ');

/**
 * What the last rewind with files did, as main answered: the files put back, and those it left as
 * they are (changed from outside after the session's last change to them, or never copied).
 */
export function PutBackNotice() {
  const notice = useKeel((s) => s.changes.notice);
  const sessionId = useKeel((s) => s.transcript.sessionId);
  if (!notice || notice.sessionId !== sessionId) return null;
  const { restored, left, large } = notice.result;
  return (
    <div className="banner put-back-notice" role="status" data-testid="put-back-notice">
      <span className="banner-text">
        <span data-testid="put-back-restored">
          {restored.length === 0 ? 'No file needed putting back.' : `Put back ${restored.length === 1 ? 'one file' : `${restored.length} files`}: ${list(restored)}.`}
        </span>
        {left.length > 0 && (
          <span data-testid="put-back-left"> Left as they are, changed from outside after the session&apos;s last change to them: {list(left)}.</span>
        )}
        {large.length > 0 && <span data-testid="put-back-large"> Left as they are, over the size limit (never copied): {list(large)}.</span>}
      </span>
      <button type="button" className="ghost small" onClick={() => useKeel.getState().changes.dismissNotice()} data-testid="put-back-dismiss">
        Dismiss
      </button>
    </div>
  );
}
