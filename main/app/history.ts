import type { FilesPutBack, KeelEvent } from '../contract.js';
import type { SqliteStore } from '../db/store.js';
import type { AgentPool } from './agentPool.js';

/** What history control needs of the service: its store, its events and its open sessions. */
export interface HistoryHost {
  store: SqliteStore;
  emit(event: KeelEvent): void;
  pool: AgentPool;
}

/**
 * Undo, rewind, edit and resend, delete a turn, delete a session: the app's history control, in one
 * place (the past itself changes in core/history, through the session's loop). Each
 * acts only while the session is idle. A turn the store still shows open then belongs to a reply
 * cut off by a quit or crash, so it is ended first (nothing in this process is running it).
 */
export class SessionHistory {
  constructor(private readonly h: HistoryHost) {}

  /** Takes back the last completed turn; with `files`, what it changed too, and the answer says what. */
  async undo(id: number, files = false): Promise<FilesPutBack | undefined> {
    const agent = await this.idleAgent(id);
    const plan = agent.undo({ files });
    this.h.emit({ type: 'session-changed', sessionId: id });
    return plan;
  }

  /**
   * Takes back turn `seq` and every later one; the next request reuses the cache up to there. With
   * `files`, what those turns changed goes back too, and the answer says what (and what was left).
   */
  async rewind(id: number, seq: number, files = false): Promise<FilesPutBack | undefined> {
    const agent = await this.idleAgent(id);
    const plan = agent.rewindTo(seq, { files });
    this.h.emit({ type: 'session-changed', sessionId: id });
    return plan;
  }

  /** A rewind to turn `seq` (with its files, if `files`), then `text` sent in its place; resolves when the new turn ends. */
  async editAndResend(id: number, seq: number, text: string, files = false): Promise<FilesPutBack | undefined> {
    let plan: FilesPutBack | undefined;
    await this.h.pool.run(id, (agent, signal) => {
      agent.session.endReply();
      plan = agent.rewindTo(seq, { files });
      return agent.send(text, { signal });
    }, { marksStop: true });
    return plan;
  }

  /** Takes back one turn, keeping the later ones (refused where a later stub names its results). */
  async deleteTurn(id: number, seq: number): Promise<void> {
    const agent = await this.idleAgent(id);
    agent.deleteTurn(seq);
    this.h.emit({ type: 'session-changed', sessionId: id });
  }

  /** Closes the session's loop, removes its saved state, then deletes it from the store. */
  async deleteSession(id: number): Promise<void> {
    await this.h.pool.forget(id);
    this.h.store.deleteSession(id);
  }

  private async idleAgent(id: number) {
    this.h.pool.idle(id);
    const agent = await this.h.pool.agent(id);
    agent.session.endReply();
    return agent;
  }
}
