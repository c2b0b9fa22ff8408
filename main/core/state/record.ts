import type { Mode, SessionRow, SessionStore } from './types.js';

/**
 * A session's row: the one copy every module of the session reads, each change written to the
 * store first, then kept.
 */
export class SessionRecord {
  constructor(private readonly store: SessionStore, private current: SessionRow) {}

  get row(): SessionRow {
    return this.current;
  }

  update(fields: Partial<SessionRow>): void {
    this.store.updateSession(this.current.id, fields);
    this.current = { ...this.current, ...fields };
  }

  /** The person (or plan_submit) changed the permission mode; the model hears of it as a note on the next message. */
  setMode(mode: Mode): void {
    if (mode !== this.current.mode) this.update({ mode });
  }
}
