import type { AppState, NoteView, SessionSummary, SessionView, SubagentLink, ToolView, TurnView } from '../contract.js';
import { elidedMark } from '../core/hygiene/cap.js';
import { formatId } from '../core/hygiene/ids.js';
import { sha256 } from '../core/workspace/files.js';
import { messageWithNotes } from '../core/state/notes.js';
import type { CallResult, Session } from '../core/session/session.js';
import type { ResultRow, SessionRow, SessionStore } from '../core/state/types.js';
import type { Attachment } from '../core/types.js';
import { SUBAGENT_MIME } from '../core/tools/task.js';
import type { SqliteStore } from '../db/store.js';
import { sessionTitle } from './sessionTitle.js';
import { describeSandbox, type CommandRunner } from '../core/tools/commandRunner.js';
import { hookRunsView, runsView } from './hooksView.js';

/** The session list row. */
export function summaryOf(row: SessionRow, store: SessionStore): SessionSummary {
  const turns = store.listTurns(row.id);
  return {
    id: row.id, kind: row.kind, workspace: row.root, title: sessionTitle(row, turns),
    model: row.model, mode: row.mode, turns: turns.filter((t) => t.status !== 'undone').length,
    createdAt: row.createdAt,
  };
}

/** The transcript as the UI shows it: each message's words and notes apart, each result as sent. */
export function sessionView(session: Session, store: SessionStore & Pick<SqliteStore, 'stoppedTurns'>, running: boolean): SessionView {
  const row = store.getSession(session.id)!;
  const stopped = store.stoppedTurns(session.id);
  const results = new Map<number, ResultRow>(store.listResults(session.id).map((r) => [r.number, r]));
  const turns: TurnView[] = session.turns().map((turn) => ({
    seq: turn.seq,
    status: turn.status,
    ...(stopped.has(turn.seq) ? { stopped: true } : {}),
    words: turn.words,
    notes: turn.notes.map((note): NoteView => ({ kind: note.kind, text: messageWithNotes('', [note]) })),
    parts: turn.replies.flatMap((reply) => [
      ...(reply.text ? [{ type: 'text' as const, text: reply.text }] : []),
      ...reply.calls.map((call) => ({ type: 'tool' as const, tool: toolView(results.get(call.number), call.name, call.args, call.number, store.listAttachments(session.id, call.number)) })),
    ]),
  }));
  return {
    summary: summaryOf(row, store),
    compacted: session.history.compacted(),
    turns,
    plan: row.plan,
    planPending: row.planNotePending,
    systemPromptSha: sha256(row.systemPrompt),
    running,
  };
}

/** A stored result, as the transcript shows it (a session loaded from the store). */
export function toolView(row: ResultRow | undefined, name: string, args: unknown, number: number, attachments: readonly Attachment[] = []): ToolView {
  const elided = row && elidedMark(row.inserted, row.body, formatId(number));
  const subagent = subagentLink(attachments);
  return {
    number, id: formatId(number), name, args, text: row?.inserted ?? '',
    ...(row?.tokens === undefined ? {} : { tokens: row.tokens }), ...(elided ? { elided } : {}),
    ...(row?.hooks === undefined ? {} : { hooks: hookRunsView(row.hooks) }),
    ...(subagent ? { subagent } : {}),
  };
}

/**
 * A result as a call just made it: the value the loop handed on, with nothing read back from the
 * store but its attachments (the value carries none; they were stored with it, in the one write).
 */
export function callView(result: CallResult, name: string, args: unknown, attachments: readonly Attachment[] = []): ToolView {
  const subagent = subagentLink(attachments);
  return {
    number: result.number, id: formatId(result.number), name, args, text: result.text,
    ...(result.tokens === undefined ? {} : { tokens: result.tokens }), ...(result.elided ? { elided: result.elided } : {}),
    ...(result.hooks === undefined ? {} : { hooks: runsView(result.hooks) }),
    ...(subagent ? { subagent } : {}),
  };
}

/** The subagent a result's attachment names (the `task` tool's, SUBAGENT_MIME), if any. */
export function subagentLink(attachments: readonly Attachment[]): SubagentLink | undefined {
  const found = attachments.find((a) => a.mimeType === SUBAGENT_MIME);
  if (!found) return undefined;
  try {
    const { sessionId } = JSON.parse(Buffer.from(found.data).toString('utf8')) as { sessionId?: unknown };
    return typeof sessionId === 'number' ? { sessionId } : undefined;
  } catch {
    return undefined;
  }
}

/** Whether commands are sandboxed here, in the person's words (the status bar and Settings show it). */
export async function sandboxView(commands: CommandRunner | undefined): Promise<AppState['sandbox']> {
  if (!commands) return { on: false, text: 'No sandbox for commands.' };
  const status = await commands.status();
  return { on: status.kind === 'sandboxed', text: describeSandbox(status) };
}
