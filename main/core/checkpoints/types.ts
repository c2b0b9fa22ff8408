/**
 * Checkpoints: what the session needs to record every change it makes to the workspace, per turn,
 * and to put files back on a rewind (contract.md "Checkpoints"). Types only: main/checkpoints
 * implements them on a shadow git repository in Keel's data folder.
 *
 * Paths here are relative to the workspace root, with `/` between parts.
 */

/** How a file differs between two recorded states. */
export type ChangeKind = 'created' | 'modified' | 'deleted' | 'renamed' | 'mode';

/** A file the session changed, between a base (the session's start or a turn's) and now. */
export interface ChangedFile {
  path: string;
  kind: ChangeKind;
  /** For `renamed`: the path it had in the base. */
  from?: string;
  /** Neither side can be shown as text (a NUL byte in it). */
  binary: boolean;
  /** Over the size limit: named, never copied, so it cannot be shown or put back. */
  large: boolean;
  /** Either side is a symbolic link (its target is what is compared and shown). */
  link: boolean;
  /** The unified diff, base to now, without `---`/`+++` lines; '' when binary, large or only the mode changed. */
  diff: string;
  /** The hunks of `diff`, in order: `revertHunk` takes an index into these. */
  hunks: string[];
}

/** What a rewind with files does (or would do): every path once. */
export interface RewindPlan {
  /** Put back as it was just before the turn (removed, where it did not exist then). */
  restored: string[];
  /** Changed from outside after the session's last change to it: left as it is. */
  left: string[];
  /** Over the size limit when recorded: never copied, so left as it is. */
  large: string[];
}

/**
 * Why a turn cannot be rewound with files (it was not recorded: the session began before Keel
 * recorded files, or a snapshot failed), or a revert cannot be done. The message says which.
 */
export class CheckpointError extends Error {}

/**
 * A session's record of the workspace. Every method works synchronously and never changes the
 * workspace's own `.git`. The recording methods never throw: a failure comes back as its reason,
 * the turn goes on, and that turn (and every turn before it) can then be rewound only without files.
 */
export interface Checkpoints {
  /** Turn `seq` begins: the workspace as it is now is what a rewind to it puts back. */
  turnStarted(seq: number): string | undefined;
  /**
   * Before a call whose changes only a walk of the workspace finds (a command allowed to write, an
   * MCP tool): what changed since the last record was changed from outside.
   */
  beforeCall(seq: number): string | undefined;
  /**
   * After a call of turn `seq`: what changed since `beforeCall` (or, with `paths`, in those absolute
   * paths: what the file tools say they wrote) is the session's change.
   */
  afterCall(seq: number, paths?: readonly string[]): string | undefined;
  /** What a rewind to turn `seq` with files would do; throws CheckpointError where it cannot. */
  planRewind(seq: number): RewindPlan;
  /**
   * Puts the files back (see RewindPlan) and records that as the session's change. `takeBack` runs
   * once the files are back, before the rewind counts as done: a crash between is finished by
   * `recover` on the next open, so the workspace ends either before or after, never half.
   */
  rewind(seq: number, takeBack: () => void): RewindPlan;
  /**
   * Finishes a rewind a crash interrupted: the files, then `takeBack(seqs)` with the turns it was
   * taking back. Returns those turns, or undefined when nothing was in flight.
   */
  recover(takeBack: (seq: number) => void): number | undefined;
  /** Files the session changed since turn `seq` began (undefined: since the session began), against now. */
  changes(sinceSeq?: number): ChangedFile[];
  /** Puts one file back as it was when turn `seq` began (or the session); recorded as the session's change. */
  revertFile(path: string, sinceSeq?: number): void;
  /** Takes back one hunk (an index into `changes`' hunks) of a file, leaving its other hunks. */
  revertHunk(path: string, hunk: number, sinceSeq?: number): void;
  /** Every turn that can be rewound with files, by seq. */
  recordedTurns(): number[];
}

/** Opens the checkpoints of a session (a new one records the workspace as it is at its start). */
export type OpenCheckpoints = (sessionId: number, root: string, o: { fresh: boolean }) => Checkpoints;
