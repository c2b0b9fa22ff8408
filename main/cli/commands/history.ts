import { formatPlan, STATUSES } from '../../core/tools/planWrite.js';
import type { PlanItem } from '../../core/tools/types.js';
import type { Session } from '../../core/session/session.js';
import type { Turn } from '../../core/state/types.js';
import { clip } from '../format.js';
import { CliError, type Writer } from '../io.js';
import type { Conversation } from './conversation.js';

/** A turn number as `/history` lists it. */
function parseTurn(given: string | undefined, usage: string): number {
  if (given === undefined || !/^\d+$/.test(given) || Number(given) < 1) {
    throw new CliError(`${usage} needs a turn number as /history lists them${given === undefined ? '' : `, not "${given}"`}.`);
  }
  return Number(given);
}

const resultsOf = (turns: readonly Turn[]) => turns.flatMap((t) => t.replies.flatMap((r) => r.calls.map((c) => c.number)));

/** `/history`: the turns the next request carries, each with its number, words and results. */
export function showHistory(session: Session, out: Writer): void {
  const turns = session.turns();
  if (turns.length === 0) {
    out.write(session.epoch > 0 ? 'No turns since the last compaction.\n' : 'No turns yet.\n');
    return;
  }
  for (const t of turns) {
    const results = resultsOf([t]).length;
    out.write(`${String(t.seq).padStart(4)}  ${clip(t.words ?? '(no message)', 70)}${results > 0 ? `  [${results} result${results === 1 ? '' : 's'}]` : ''}\n`);
  }
}

/** What taking these turns back removes, in one line. */
function whatWent(turns: readonly Turn[], files = false): string {
  const seqs = turns.map((t) => t.seq);
  const results = resultsOf(turns).length;
  const which = seqs.length === 1 ? `turn ${seqs[0]}` : `turns ${seqs.join(', ')}`;
  return `Took back ${which} (${results} result${results === 1 ? '' : 's'} left the request; ${files ? 'with their files' : 'files on disk stay as they are'}).`;
}

/** A reply cut off by a quit or crash is over: at the prompt nothing is running. */
function idle(c: Conversation): Turn[] {
  c.session.endReply();
  return c.session.turns();
}

/**
 * `/rewind N [--files]`: takes back turn N and every later one; prints what went and N's words.
 * With --files the files those turns changed go back too, and it says which (and which were left).
 */
export function rewind(c: Conversation, args: string[], out: Writer): void {
  const files = args.includes('--files');
  const seq = parseTurn(args.filter((a) => a !== '--files')[0], '/rewind');
  const gone = idle(c).filter((t) => t.seq >= seq);
  const plan = c.agent.rewindTo(seq, { files });
  out.write(`${whatWent(gone, files)}\n`);
  if (plan) {
    out.write(plan.restored.length === 0 ? 'No file needed putting back.\n' : `Put back: ${plan.restored.join(', ')}\n`);
    if (plan.left.length > 0) out.write(`Left as they are (changed from outside since): ${plan.left.join(', ')}\n`);
    if (plan.large.length > 0) out.write(`Left as they are (over the size limit, never copied): ${plan.large.join(', ')}\n`);
  }
  const words = gone[0]?.words;
  if (words) out.write(`Turn ${seq} said: ${words}\n`);
}

/**
 * `/edit N NEW TEXT`: a rewind to turn N, then the new text sent in its place. Without text it
 * changes nothing and shows the command with turn N's words, to edit (on a terminal, in the line).
 */
export async function edit(c: Conversation, line: string, send: (text: string) => Promise<void>, out: Writer, prefill?: (text: string) => void): Promise<void> {
  const [, given] = line.split(/\s+/);
  const seq = parseTurn(given, '/edit');
  const text = line.replace(/^\/edit\s+\S+\s?/, '');
  const turn = idle(c).find((t) => t.seq === seq);
  if (text.trim() === '') {
    if (!turn) throw new CliError(`There is no turn ${seq} to edit (see /history).`);
    const draft = `/edit ${seq} ${turn.words ?? ''}`;
    if (prefill && !draft.includes('\n')) prefill(draft);
    else throw new CliError(`/edit needs the new text: ${draft}`);
    return;
  }
  const gone = c.session.turns().filter((t) => t.seq >= seq);
  c.agent.rewindTo(seq);
  out.write(`${whatWent(gone)}\n`);
  await send(text);
}

/** `/delete N`: takes back turn N alone, keeping the later turns, where the spec allows it. */
export function deleteTurn(c: Conversation, args: string[], out: Writer): void {
  const seq = parseTurn(args[0], '/delete');
  idle(c);
  const turn = c.session.turns().find((t) => t.seq === seq);
  c.agent.deleteTurn(seq);
  out.write(`${whatWent(turn ? [turn] : [])}\n`);
}

export const PLAN_HELP = `/plan                      show the plan
  /plan add TEXT             add a step            /plan edit N TEXT   reword step N
  /plan todo|doing|done N    set step N's status   /plan remove N      remove step N
  /plan clear                no plan`;

/** `/plan …`: shows or changes the plan; a change reaches the model as a note on the next message. */
export function plan(session: Session, args: string[], out: Writer): void {
  const [verb, ...rest] = args;
  if (verb !== undefined) session.setPlanByPerson(editPlan(session.plan, verb, rest));
  const shown = session.plan.length === 0 ? '(no plan)' : formatPlan(session.plan);
  const pending = session.planNotePending ? ' (the model hears of your change with your next message)' : '';
  out.write(`Plan${pending}:\n${shown}\n`);
}

/** The plan after one `/plan` change. */
export function editPlan(items: readonly PlanItem[], verb: string, rest: string[]): PlanItem[] {
  const step = (given: string | undefined) => {
    const n = Number(given);
    if (given === undefined || !/^\d+$/.test(given) || n < 1 || n > items.length) {
      throw new CliError(`/plan ${verb} needs a step number from 1 to ${items.length}${given === undefined ? '' : `, not "${given}"`}.`);
    }
    return n - 1;
  };
  const text = (words: string[]) => {
    const t = words.join(' ').trim();
    if (t === '') throw new CliError(`/plan ${verb} needs the step's text.`);
    return t;
  };
  if (verb === 'add') return [...items, { text: text(rest), status: 'todo' }];
  if (verb === 'clear') return [];
  if (verb === 'remove') {
    const i = step(rest[0]);
    return items.filter((_, j) => j !== i);
  }
  if (verb === 'edit') {
    const i = step(rest[0]);
    return items.map((item, j) => (j === i ? { ...item, text: text(rest.slice(1)) } : item));
  }
  if ((STATUSES as readonly string[]).includes(verb)) {
    const i = step(rest[0]);
    return items.map((item, j) => (j === i ? { ...item, status: verb as PlanItem['status'] } : item));
  }
  throw new CliError(`Unknown /plan change "${verb}". ${PLAN_HELP}`);
}
