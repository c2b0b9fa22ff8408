import type { Agent } from '../llm/agent.js';
import type { KeelEvent } from '../contract.js';
import type { SqliteStore } from '../db/store.js';
import { removeSessionState } from '../keelHome.js';

/** What history control needs of the service: its store, its agents and its one-at-a-time runner. */
export interface HistoryHost {
  store: SqliteStore;
  dataFolder: string;
  emit(event: KeelEvent): void;
  /** Throws when the session is answering. */
  idle(id: number): void;
  /** The session's agent, loading its model when needed. */
  agent(id: number): Promise<Agent>;
  /** Runs model work for a session with a stop button; resolves when the turn ends. */
  run(id: number, work: (agent: Agent, signal: AbortSignal) => Promise<unknown>): Promise<void>;
  /** Closes the session's agent, if one is open, without saving anything more for it. */
  release(id: number): Promise<void>;
}

/**
 * Rewind, edit and resend, delete a turn, delete a session: the service's history control. Each
 * acts only while the session is idle. A turn the store still shows open then belongs to a reply
 * cut off by a quit or crash, so it is ended first (nothing in this process is running it).
 */
export class SessionHistory {
  constructor(private readonly h: HistoryHost) {}

  /** Takes back turn `seq` and every later one; the next request reuses the cache up to there. */
  async rewind(id: number, seq: number): Promise<void> {
    this.h.idle(id);
    const agent = await this.idleAgent(id);
    agent.rewindTo(seq);
    this.h.emit({ type: 'session-changed', sessionId: id });
  }

  /** A rewind to turn `seq`, then `text` sent in its place; resolves when the new turn ends. */
  async editAndResend(id: number, seq: number, text: string): Promise<void> {
    await this.h.run(id, (agent, signal) => {
      agent.session.endReply();
      agent.rewindTo(seq);
      return agent.send(text, { signal });
    });
  }

  /** Takes back one turn, keeping the later ones (refused where a later stub names its results). */
  async deleteTurn(id: number, seq: number): Promise<void> {
    this.h.idle(id);
    const agent = await this.idleAgent(id);
    agent.deleteTurn(seq);
    this.h.emit({ type: 'session-changed', sessionId: id });
  }

  /** Deletes the session from the store, then its saved state files. */
  async deleteSession(id: number): Promise<void> {
    this.h.idle(id);
    await this.h.release(id);
    this.h.store.deleteSession(id);
    removeSessionState(this.h.dataFolder, id);
  }

  private async idleAgent(id: number): Promise<Agent> {
    const agent = await this.h.agent(id);
    agent.session.endReply();
    return agent;
  }
}
