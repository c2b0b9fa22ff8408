import { useState } from 'react';
import { visibleParts, visibleText, type ApprovalView } from '../../../../main/contract.js';
import { argsLine } from '../../lib/format.js';
import { diffClass, isDiff } from '../../lib/resultBlocks.js';
import { useKeel } from '../../stores/store.js';
import { Linkified } from '../common/IdLink.js';

/** What "Always for this session" covers (main/core/permissions/approval.ts: the grant's key). */
function sessionGrant(a: ApprovalView): string {
  if (a.server !== undefined) return `Allows ${a.serverTool} of ${a.server} with any arguments, without asking, until this session ends.`;
  if (a.command !== undefined) return 'Allows exactly this command line again, without asking, until this session ends; any other command is asked.';
  return `Allows ${a.tool} of ${a.paths.length ? 'these paths' : 'the same files'} again, without asking, until this session ends.`;
}

/** `rm` with both -r (or -R) and -f among its flags, in any order or grouping. */
const forcedRecursiveRm = (command: string) => [...command.matchAll(/\brm((?:\s+-[A-Za-z-]+)+)/g)].some(([, flags]) => {
  const letters = flags!.split(/\s+/).filter((f) => /^-[A-Za-z]+$/.test(f)).join('');
  return /[rR]/.test(letters) && letters.includes('f');
});

/** Parts of a command line that destroy what they touch, in words, for the card to flag. */
const DESTRUCTIVE: ReadonlyArray<[(command: string) => boolean, string]> = [
  [forcedRecursiveRm, 'deletes recursively, without asking'],
  [(c) => /\bgit\s+(push\s+.*(--force\b|\s-f\b)|reset\s+--hard|clean\s+-[A-Za-z]*f)/.test(c), 'discards git history or changes'],
  [(c) => /\b(mkfs(\.\w+)?|shred)\b|\bdd\s+.*\bof=/.test(c), 'overwrites a disk or file'],
];

export function destructiveParts(command: string): string[] {
  return DESTRUCTIVE.filter(([test]) => test(command)).map(([, words]) => words);
}

/** The open session's first waiting approval, docked over the transcript's foot. */
export function Approvals() {
  const sessionId = useKeel((s) => s.transcript.sessionId);
  const approval = useKeel((s) => s.approvals.items.find((a) => a.sessionId === sessionId));
  return approval ? <ApprovalCard approval={approval} /> : null;
}

/** Exactly what will happen (the diff or the command line, and the real paths) before it runs. */
export function ApprovalCard({ approval }: { approval: ApprovalView }) {
  const busy = useKeel((s) => Boolean(s.approvals.answering[approval.approvalId]));
  const answer = useKeel.getState().approvals.answer;
  const [reason, setReason] = useState('');
  const deny = () => void answer(approval.approvalId, 'deny', reason);
  const diff = isDiff(approval.preview);
  return (
    <section className="approval" data-testid="approval-card" data-approval-id={approval.approvalId} aria-label="Approval">
      <header>
        <strong>{visibleText(approval.server !== undefined ? `Allow ${approval.serverTool} of the MCP server ${approval.server}?` : `Allow this ${approval.tool}?`)}</strong>
        <span className="tag amber">waiting</span>
        <span className="muted small">
          <Shown text={approval.reason} />
        </span>
      </header>
      <div className="approval-what">
        <span className="tool-name">{approval.tool}</span>
        {approval.command !== undefined ? (
          <code className="mono" data-testid="approval-command">
            <Shown text={approval.command} />
          </code>
        ) : (
          <span className="mono muted">
            <Shown text={argsLine(approval.args)} />
          </span>
        )}
        {approval.command !== undefined && destructiveParts(approval.command).map((words) => (
          <span key={words} className="tag bad" data-testid="approval-destructive">
            {words}
          </span>
        ))}
        {approval.paths.map((p) => (
          <span key={p} className="mono approval-path" data-testid="approval-path">
            → <Shown text={p} />
          </span>
        ))}
      </div>
      <div className="approval-preview result-text mono" data-testid="approval-preview">
        {approval.preview.split('\n').map((line, i) => (
          <div key={i} className={`line ${diff ? (diffClass(line) ?? '') : ''}`}>
            <Linkified text={visibleText(line)} />
          </div>
        ))}
      </div>
      <footer className="row">
        <button type="button" className="ok" disabled={busy} onClick={() => void answer(approval.approvalId, 'allow')} data-testid="approval-allow">
          Allow once
        </button>
        <button type="button" disabled={busy} onClick={() => void answer(approval.approvalId, 'allow-session')} title={sessionGrant(approval)} aria-describedby={`grant-${approval.approvalId}`} data-testid="approval-allow-session">
          Always for this session
        </button>
        <span className="sr-only" id={`grant-${approval.approvalId}`}>{sessionGrant(approval)}</span>
        <input
          className="approval-reason"
          placeholder="Deny, and tell the model why (optional)"
          value={reason}
          disabled={busy}
          onChange={(e) => setReason(e.target.value)}
          onKeyDown={(e) => {
            // Escape here denies too, with what was typed (the window's Escape would drop it).
            if (e.key !== 'Enter' && e.key !== 'Escape') return;
            e.stopPropagation();
            deny();
          }}
          data-testid="approval-reason"
        />
        <button type="button" className="danger" disabled={busy} onClick={deny} title="Deny (Escape)" data-testid="approval-deny">
          Deny <kbd>Esc</kbd>
        </button>
      </footer>
    </section>
  );
}

/**
 * Text as an approval must show it: control, escape and bidi characters named (⟨ESC⟩, ⟨U+202E⟩),
 * marked so they stand out; the CLI shows the same names (main/core/permissions/visible.ts).
 */
function Shown({ text }: { text: string }) {
  return (
    <>
      {visibleParts(text).map((part, i) =>
        part.escaped ? (
          <mark key={i} className="escaped-char" data-testid="escaped-char">
            {part.text}
          </mark>
        ) : (
          part.text
        ),
      )}
    </>
  );
}
