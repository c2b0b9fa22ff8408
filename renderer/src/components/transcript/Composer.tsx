import { useEffect, useState, type KeyboardEvent } from 'react';
import { MOD, withMod } from '../../shortcuts.js';
import { useTranscript } from '../../stores/useTranscript.js';

/** The message box: Ctrl/Cmd+Enter sends; Enter is a new line. */
export function Composer() {
  const [text, setText] = useState('');
  const hasSession = useTranscript((s) => s.sessionId !== undefined);
  const running = useTranscript((s) => s.running);
  const mode = useTranscript((s) => s.view?.summary.mode);
  const draft = useTranscript((s) => s.draft);
  // A message rewound to comes back here, to send again or change.
  useEffect(() => {
    if (draft) setText(draft.text);
  }, [draft]);
  const canSend = hasSession && !running && text.trim() !== '';

  const send = () => {
    if (!canSend) return;
    void useTranscript.getState().send(text);
    setText('');
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && withMod(e)) {
      e.preventDefault();
      send();
    }
  };

  return (
    <div className="composer">
      <textarea
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
        placeholder={hasSession ? `Reply to Keel…  ${MOD}+Enter sends` : 'Open or start a session first'}
        disabled={!hasSession}
        rows={3}
        aria-label="Message"
        data-testid="message-input"
      />
      <div className="composer-side">
        {mode && <span className="tag">mode: {mode}</span>}
        {running && (
          <button type="button" className="danger" onClick={() => void useTranscript.getState().stop()} title="Stop (Escape)" data-testid="composer-stop">
            Stop
          </button>
        )}
        <button type="button" className="primary" disabled={!canSend} onClick={send} title={`Send (${MOD}+Enter)`} data-testid="send-button">
          Send
        </button>
      </div>
    </div>
  );
}
