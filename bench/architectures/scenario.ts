/**
 * The scripted session bench:architectures plays on every architecture: bench:reuse's agent session
 * (tool calls and their results, an edit), cut to a length that reaches past 16k tokens, with the
 * history actions people take — an undo and a new message in its place, an edit and resend, a
 * rewind, a regenerate — and, where the family writes reasoning, a thought before the first reply of
 * every turn (so a template that drops earlier reasoning renders the previous turn otherwise when
 * the next message comes).
 */
import { generateScript, type Reply, type Script, type Turn } from '../reuse/script.js';

export type Step =
  | { kind: 'send'; turn: Turn }
  /** Takes back the last turn (the next step sends a message in its place). */
  | { kind: 'undo' }
  /** Takes back the kept turn at `index` (0-based) and every later one. */
  | { kind: 'rewind'; index: number }
  /** Takes back the last turn and sends its message again, with the same replies. */
  | { kind: 'regenerate'; turn: Turn };

export interface Scenario {
  files: Script['files'];
  steps: Step[];
  calls: number;
}

/** A reply with the reasoning the model writes before it (where its family has reasoning). */
export interface ThoughtReply extends Reply {
  thought?: string;
}

/**
 * `turns` of bench:reuse's session with the history actions between them: after turn 4 an undo
 * and an edited message in its place; after turn 8 a regenerate; after turn 12 a rewind of the two
 * turns before; after turn 16 an edit and resend of turn 16.
 */
export function scenario(seed: number, turns: number, calls: number, reasoning: boolean): Scenario {
  const script = generateScript(seed, turns, calls);
  const withThought = (t: Turn, k: number): Turn => (reasoning
    ? { ...t, replies: t.replies.map((r, i): ThoughtReply => (i === 0 ? { ...r, thought: `The person asks about step ${k + 1}; look first, then act.` } : r)) }
    : t);
  const all = script.turns.map(withThought);
  const steps: Step[] = [];
  let kept = 0;
  all.forEach((turn, k) => {
    steps.push({ kind: 'send', turn });
    kept++;
    const n = k + 1;
    // A turn played again does not edit again: the workspace keeps the first run's edit (no rewind takes files back).
    const again = readOnly(turn);
    if (n === 4) {
      steps.push({ kind: 'undo' }, { kind: 'send', turn: { ...again, words: `${turn.words} (said otherwise)` } });
    } else if (n === 8) {
      steps.push({ kind: 'regenerate', turn: again });
    } else if (n === 12) {
      steps.push({ kind: 'rewind', index: kept - 2 });
      kept -= 2;
    } else if (n === 16) {
      steps.push({ kind: 'rewind', index: kept - 1 }, { kind: 'send', turn: { ...again, words: `${turn.words} Keep it short.` } });
    }
  });
  return { files: script.files, steps, calls: script.calls };
}

/** The turn with each edit call read instead (the same file). */
function readOnly(turn: Turn): Turn {
  return {
    ...turn,
    replies: turn.replies.map((r) => (r.call?.name === 'edit' ? { ...r, call: { name: 'read', args: { path: r.call.args.path } } } : r)),
  };
}
