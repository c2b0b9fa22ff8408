import type { ReplyPart, SessionView, ToolView, TurnView } from '../../../main/contract.js';
import type { SubagentInfo } from '../stores/slices/subagents.js';
import type { Live } from '../stores/slices/transcript.js';

/** One virtualized row of the transcript. Keys are stable across reloads and streaming. */
export type Row =
  | { kind: 'compacted'; key: string; text: string }
  | { kind: 'person'; key: string; turn: TurnView; pending: boolean }
  | { kind: 'text'; key: string; seq: number; index: number; text: string; streaming: boolean }
  | { kind: 'tool'; key: string; seq: number; index: number; tool: ToolView }
  | { kind: 'working'; key: string }
  /** A subagent at work whose task call has no card yet (the card comes with the call's result). */
  | { kind: 'subagent'; key: string; childId: number }
  /** A reply the person stopped: marked where it was cut. */
  | { kind: 'stopped'; key: string; seq: number };

/**
 * The open turn's parts: what main recorded (its view), then what streamed in after the last
 * call main recorded. Streamed text before a call is dropped when the call arrives (it may be the
 * call's markup), so the reply's words come from main's record. Without a recorded call that
 * also streamed in, the streamed parts alone.
 */
export function mergeParts(recorded: ReplyPart[], streamed: ReplyPart[]): ReplyPart[] {
  let lastTool: ToolView | undefined;
  for (const part of recorded) if (part.type === 'tool') lastTool = part.tool;
  if (!lastTool) return streamed;
  const at = streamed.findIndex((part) => part.type === 'tool' && part.tool.id === lastTool.id);
  return at < 0 ? streamed : [...recorded, ...streamed.slice(at + 1)];
}

/**
 * The turns to show: main's view, with the open turn's parts merged with what streamed in, and
 * the words just sent as a pending turn until main's view has that turn.
 */
export function displayTurns(view: SessionView | undefined, live: Live | undefined, pending: string | undefined): TurnView[] {
  const turns = view?.turns ?? [];
  const last = turns.at(-1);
  const open = last?.status === 'open';
  if (open && live) return [...turns.slice(0, -1), { ...last, parts: mergeParts(last.parts, live.parts) }];
  if (!open && (live || pending !== undefined)) {
    const seq = (last?.seq ?? 0) + 1;
    return [...turns, { seq, status: 'open', words: pending, notes: [], parts: live?.parts ?? [] }];
  }
  return turns;
}

/** The session's subagents waiting or running, by session id, that no task card shows yet. */
export function pendingSubagents(known: Record<number, SubagentInfo>, sessionId: number | undefined, turns: TurnView[]): number[] {
  const shown = new Set(turns.flatMap((t) => t.parts.flatMap((p) => (p.type === 'tool' && p.tool.subagent ? [p.tool.subagent.sessionId] : []))));
  return Object.entries(known)
    .filter(([id, info]) => info.parentId === sessionId && (info.state === 'waiting' || info.state === 'running') && !shown.has(Number(id)))
    .map(([id]) => Number(id));
}

export function transcriptRows(view: SessionView | undefined, turns: TurnView[], running: boolean, pending: string | undefined, subagents: number[] = []): Row[] {
  const rows: Row[] = [];
  if (view?.compacted) rows.push({ kind: 'compacted', key: 'compacted', text: view.compacted });
  const lastSeq = turns.at(-1)?.seq;
  for (const turn of turns) {
    const isLast = turn.seq === lastSeq;
    rows.push({ kind: 'person', key: `turn-${turn.seq}`, turn, pending: isLast && pending !== undefined && !view?.turns.some((t) => t.seq === turn.seq) });
    if (turn.status === 'undone') continue;
    turn.parts.forEach((part: ReplyPart, index) => {
      const key = `turn-${turn.seq}-part-${index}`;
      if (part.type === 'text') rows.push({ kind: 'text', key, seq: turn.seq, index, text: part.text, streaming: running && isLast && turn.status === 'open' && index === turn.parts.length - 1 });
      else rows.push({ kind: 'tool', key, seq: turn.seq, index, tool: part.tool });
    });
    if (turn.stopped) rows.push({ kind: 'stopped', key: `turn-${turn.seq}-stopped`, seq: turn.seq });
  }
  for (const childId of subagents) rows.push({ kind: 'subagent', key: `subagent-${childId}`, childId });
  if (running) rows.push({ kind: 'working', key: 'working' });
  return rows;
}
