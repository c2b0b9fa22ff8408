/**
 * The background shells' part of the contract (issue 33): the Processes tab lists a session's
 * shells (bash `run_in_background`), shows one's output as the person sees it (the model's
 * `bash_output` read position does not move) and stops one as `kill_shell` does. A
 * `shells-changed` event says when one started or ended. Spread into CONTRACT (main/contract.ts);
 * values only from leaf modules.
 */
import type { ShellView } from '../core/tools/shells.js';
import { SESSION_ID, TEXT as SHELL_ID } from './args.js';
import { takes } from './shape.js';

export type { ShellState } from '../core/tools/shells.js';

/** A background shell of a session, with its one-line status as bash_output ends with it. */
export interface ShellSummary extends Omit<ShellView, 'sessionId'> {
  status: string;
}

/** What the person is shown of a shell's output: the newest part of its kept file. */
export interface ShellOutputView {
  shell: ShellSummary;
  text: string;
  /** Bytes it printed before `text` that are not shown (no longer kept, or before the shown tail). */
  dropped: number;
}

export const SHELL_CALLS = {
  /** The session's background shells, oldest first (none: an empty list). */
  shells: takes(SESSION_ID).as<(id: number) => Promise<ShellSummary[]>>(),
  /** A shell's output, its newest part (loop.json tools.shells.shown_bytes); what the model has not read stays unread. */
  shellOutput: takes(SESSION_ID, SHELL_ID).as<(id: number, shellId: string) => Promise<ShellOutputView>>(),
  /** Stops a running shell as kill_shell does (SIGTERM, SIGKILL after the grace period); resolves with kill_shell's text. */
  stopShell: takes(SESSION_ID, SHELL_ID).as<(id: number, shellId: string) => Promise<string>>(),
};
