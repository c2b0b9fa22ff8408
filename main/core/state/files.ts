import { CheckpointError, type ChangedFile, type Checkpoints, type RewindPlan } from '../checkpoints/types.js';
import { checkpointConfig, fill } from '../config.js';
import type { Inserted } from '../hygiene/types.js';
import { SessionError } from './deps.js';

/**
 * The session's side of checkpoints (contract.md "Checkpoints"): when a turn begins, and around
 * each call that may change the workspace, it asks the checkpoints to record. A file tool's change
 * is recorded by the paths it wrote; a command the gate let write, or an MCP tool, by a walk before
 * and after (`beforeWrite`, from dispatch). A failed record never stops the turn: the person is
 * told (`takeNotices`) that the turn cannot be rewound with files.
 */
export class SessionFiles {
  private walking = false;
  private readonly notices: string[] = [];

  constructor(private readonly cp: Checkpoints | undefined) {}

  get recorded(): boolean {
    return this.cp !== undefined;
  }

  turnStarted(seq: number): void {
    this.note(this.cp?.turnStarted(seq));
  }

  /** A command allowed to write, or an MCP tool, is about to run in turn `seq`. */
  beforeWrite(seq: number): void {
    if (!this.cp) return;
    this.walking = true;
    this.note(this.cp.beforeCall(seq));
  }

  /** A call of turn `seq` was inserted: what it changed is the session's. */
  afterCall(seq: number, inserted: Pick<Inserted, 'wrote'>): void {
    if (!this.cp) return;
    if (this.walking) {
      this.walking = false;
      this.note(this.cp.afterCall(seq));
    } else if (inserted.wrote && inserted.wrote.length > 0) {
      this.note(this.cp.afterCall(seq, inserted.wrote.map((f) => f.absPath)));
    }
  }

  /** What the person should hear of since it was last asked (a snapshot that failed). */
  takeNotices(): string[] {
    return this.notices.splice(0);
  }

  plan(seq: number): RewindPlan {
    return this.checked((cp) => cp.planRewind(seq));
  }

  rewind(seq: number, takeBack: () => void): RewindPlan {
    return this.checked((cp) => cp.rewind(seq, takeBack));
  }

  /** Finishes a rewind a crash interrupted (see Checkpoints.recover). */
  recover(takeBack: (seq: number) => void): number | undefined {
    return this.cp?.recover(takeBack);
  }

  /** The turns whose files were recorded, by seq (none where the session does not record files). */
  recordedTurns(): number[] {
    return this.cp?.recordedTurns() ?? [];
  }

  changes(sinceSeq?: number): ChangedFile[] {
    return this.checked((cp) => cp.changes(sinceSeq));
  }

  revertFile(path: string, sinceSeq?: number): void {
    this.checked((cp) => cp.revertFile(path, sinceSeq));
  }

  revertHunk(path: string, hunk: number, sinceSeq?: number): void {
    this.checked((cp) => cp.revertHunk(path, hunk, sinceSeq));
  }

  /** A checkpoint's refusal as the session's (its callers show SessionError's message as it is). */
  private checked<T>(f: (cp: Checkpoints) => T): T {
    if (!this.cp) throw new SessionError('This session does not record files here: its rewinds are conversation only.');
    try {
      return f(this.cp);
    } catch (err) {
      if (err instanceof CheckpointError) throw new SessionError(err.message);
      throw err;
    }
  }

  private note(reason: string | undefined): void {
    if (reason !== undefined) this.notices.push(fill(checkpointConfig.texts.not_recorded, { reason }));
  }
}
