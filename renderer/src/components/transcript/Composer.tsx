import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { MOD, withMod } from '../../shortcuts.js';
import { useKeel } from '../../stores/store.js';
import { SlashCommandList, useSlashCommands } from './SlashCommands.js';

/** Where the person's choice of send key is kept (this browser or window, across sessions). */
const SEND_KEY = 'keel.sendWithEnter';
const readSendWithEnter = () => {
  try {
    return globalThis.localStorage?.getItem(SEND_KEY) !== 'false';
  } catch {
    return true;
  }
};

/**
 * The message box. Enter sends and Shift+Enter is a new line (or, switched under the box, Enter is a
 * new line and only Ctrl/Cmd+Enter sends; Ctrl/Cmd+Enter sends either way). The hint stays under
 * the box. Up in an empty box brings back the last message sent. A message sent while a reply runs
 * is queued, shown, and sent when the turn ends (Escape or Cancel takes it back). A `/` at the start
 * lists the workspace's custom commands (SlashCommands.tsx); main sends a command's prompt.
 */
export function Composer() {
  const [text, setText] = useState('');
  const [queued, setQueued] = useState<string | undefined>();
  const [sendWithEnter, setSendWithEnter] = useState(readSendWithEnter);
  const lastSent = useRef<string | undefined>(undefined);
  const hasSession = useKeel((s) => s.transcript.sessionId !== undefined);
  const sessionId = useKeel((s) => s.transcript.sessionId);
  const running = useKeel((s) => s.transcript.running);
  const mode = useKeel((s) => s.transcript.view?.summary.mode);
  const draft = useKeel((s) => s.transcript.draft);
  const slash = useSlashCommands(text, setText);
  // A message rewound to comes back here, to send again or change.
  useEffect(() => {
    if (draft) setText(draft.text);
  }, [draft]);
  // A queued message belongs to the session it was written in.
  useEffect(() => setQueued(undefined), [sessionId]);
  // The turn ended: the queued message goes.
  useEffect(() => {
    if (running || queued === undefined) return;
    setQueued(undefined);
    void useKeel.getState().transcript.send(queued);
  }, [running, queued]);

  const canSend = hasSession && text.trim() !== '' && queued === undefined;
  const send = () => {
    if (!canSend) return;
    lastSent.current = text;
    if (running) setQueued(text);
    else void useKeel.getState().transcript.send(text);
    setText('');
  };
  const switchSendKey = () => {
    const next = !sendWithEnter;
    setSendWithEnter(next);
    try {
      globalThis.localStorage?.setItem(SEND_KEY, String(next));
    } catch {
      // Not kept: this window only.
    }
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.nativeEvent.isComposing) return; // an input method's Enter picks a candidate
    if (slash.onKeyDown(e)) return;
    if (e.key === 'Enter' && (withMod(e) || (sendWithEnter && !e.shiftKey && !e.altKey))) {
      e.preventDefault();
      send();
    } else if (e.key === 'ArrowUp' && text === '' && lastSent.current !== undefined) {
      e.preventDefault();
      setText(lastSent.current);
    }
  };
  const hint = sendWithEnter ? 'Enter sends · Shift+Enter new line' : `${MOD}+Enter sends · Enter new line`;

  return (
    <div className="composer">
      <div className="composer-main">
        {queued !== undefined && (
          <div className="composer-queued" data-testid="queued-message">
            <span className="muted small">Sends when this turn ends:</span> <span className="queued-text">{queued}</span>{' '}
            <button type="button" className="ghost small" onClick={() => (setText(queued), setQueued(undefined))} data-testid="queued-cancel">
              Cancel
            </button>
          </div>
        )}
        <SlashCommandList matches={slash.matches} chosen={slash.chosen} choose={slash.choose} />
        <textarea
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKeyDown}
          placeholder={hasSession ? 'Reply to Keel…' : 'Open or start a session first'}
          disabled={!hasSession}
          rows={3}
          aria-label="Message"
          aria-describedby="composer-hint"
          data-testid="message-input"
        />
        <div className="muted small composer-hint" id="composer-hint" data-testid="composer-hint">
          {hint} · Up: last message ·{' '}
          <button type="button" className="ghost small" onClick={switchSendKey} data-testid="send-key-switch">
            {sendWithEnter ? `send with ${MOD}+Enter instead` : 'send with Enter instead'}
          </button>
        </div>
      </div>
      <div className="composer-side">
        {mode && <span className="tag">mode: {mode}</span>}
        {running && (
          <button type="button" className="danger" onClick={() => void useKeel.getState().transcript.stop()} title="Stop (Escape)" data-testid="composer-stop">
            Stop
          </button>
        )}
        <button type="button" className="primary" disabled={!canSend} onClick={send} title={running ? 'Queue: sent when this turn ends' : `Send (${sendWithEnter ? 'Enter' : `${MOD}+Enter`})`} data-testid="send-button">
          {running ? 'Queue' : 'Send'}
        </button>
      </div>
    </div>
  );
}
