/**
 * The checkpoints' block of the contract (contract.md "Checkpoints"): the Changes tab (the files a
 * session changed, against its start or a turn's, each with its diff), its reverts, and what a
 * rewind with files would put back before the person confirms it. contract.ts spreads
 * CHECKPOINT_CALLS into CONTRACT; the views are types only.
 */
import type { ChangedFile, RewindPlan } from '../core/checkpoints/types.js';
import { PATH, SEQ, SESSION_ID, TEXT } from './args.js';
import { optional, takes } from './shape.js';

export type { ChangedFile } from '../core/checkpoints/types.js';

/** What a rewind with files did: each path once (put back, left as changed from outside, or too large to have been copied). */
export type FilesPutBack = RewindPlan;

/** The files a session changed since its start (or turn `since` began), each as it is now. */
export interface ChangesView {
  sessionId: number;
  /** The base: the start of turn `since`; undefined for the session's start. */
  since?: number;
  /** The turns a view can start from, oldest first: those in the history now whose files were recorded. */
  turns: { seq: number; words?: string }[];
  files: ChangedFile[];
  /** Why no files can be shown (their changes were not recorded); `files` is then empty. */
  unavailable?: string;
}

/** One file a rewind with files puts back, and how. */
export interface PutBackFile {
  path: string;
  /** `restored`: its content as before; `removed`: created in those turns; `recreated`: deleted in them. */
  how: 'restored' | 'removed' | 'recreated';
}

/** What a rewind to turn `seq` with files would do, for its confirmation. */
export interface RewindPlanView {
  seq: number;
  /** Whether the files can go back with the conversation; where not, `unavailable` says why (conversation only). */
  canRewindFiles: boolean;
  unavailable?: string;
  putBack: PutBackFile[];
  /** Changed from outside after the session's last change to them: a rewind leaves them as they are. */
  left: string[];
  /** Over the size limit when recorded (never copied): left as they are. */
  large: string[];
}

const HUNK = { type: 'integer', minimum: 0 } as const;

export const CHECKPOINT_CALLS = {
  /** The files the session changed since it began (or since turn `since` began), each with its diff. */
  changes: takes(SESSION_ID, optional(SEQ)).as<(id: number, since?: number) => Promise<ChangesView>>(),
  /** Puts one file back as it was at the view's base; recorded as the session's change (a later rewind still works). Returns the new view. */
  revertFile: takes(SESSION_ID, PATH, optional(SEQ)).as<(id: number, path: string, since?: number) => Promise<ChangesView>>(),
  /**
   * Takes back hunk `hunk` (an index into the file's hunks) of a file, leaving its other hunks;
   * `shown` is that hunk's text as the view showed it: a file changed since is refused, naming it.
   */
  revertHunk: takes(SESSION_ID, PATH, HUNK, TEXT, optional(SEQ))
    .as<(id: number, path: string, hunk: number, shown: string, since?: number) => Promise<ChangesView>>(),
  /** What a rewind to turn `seq` with files would put back (without `seq`: the turn Undo takes back). */
  rewindPlan: takes(SESSION_ID, optional(SEQ)).as<(id: number, seq?: number) => Promise<RewindPlanView>>(),
};
