import type { KeelEvent } from '../contract.js';
import { loopConfig } from '../core/config.js';
import { formatId } from '../core/hygiene/ids.js';
import { Session, type SessionDeps } from '../core/session/session.js';
import { hookFailure } from '../core/hooks/run.js';
import type { AgentLoop, LoopEvent, Script } from '../core/turn/loop.js';
import type { ExternalTools } from '../core/tools/external.js';
import type { Engine } from '../core/engine/types.js';
import type { LoadedModel } from '../llm/model.js';
import { defaultStateBudget } from '../llm/stateFiles.js';
import { removeSessionState, sessionStateFile } from '../keelHome.js';
import { connectEngine, engineRefGone, openAgent, openEngine, parseEngineRef, type EngineHosting, type EngineRef } from '../openEngine.js';
import type { SqliteStore } from '../db/store.js';
import type { SessionLock } from '../db/sessionLock.js';
import type { ModelCatalog } from './catalog.js';
import { callView } from './views.js';

export interface PoolOptions {
  deps: SessionDeps;
  catalog: ModelCatalog;
  dataFolder: string;
  emit: (event: KeelEvent) => void;
  scriptFor?: (sessionId: number) => Script | undefined;
  /** How long a session waits idle before its cache is saved (default: loop.json). */
  idleSaveMs?: number;
  /** The MCP tools of a session's servers (its workspace's, an editor's), connected (or failed) before it opens. */
  external?: (row: { id: number; root: string }) => Promise<ExternalTools | undefined>;
  /** The API key kept for a model server's URL (serverKeys.ts). */
  serverKey?: (url: string) => string | undefined;
  /** Where a reply the person stopped is marked (the app's store). */
  marks?: Pick<SqliteStore, 'setLatestTurnStopped'>;
  /** Takes a session for this process while its loop is open; throws when another process drives it (db/sessionLock.ts). */
  lock?: (sessionId: number) => SessionLock;
}

/**
 * The open sessions' agent loops, one engine (a context sequence) each, and the work running on them:
 * one piece at a time per session, with a stop. A session's cache is saved when it goes idle — off
 * the path of its next message — and that save is awaited before its sequence is given to another
 * session or the app quits.
 */
export class AgentPool {
  private readonly agents = new Map<number, AgentLoop>();
  private readonly running = new Map<number, AbortController>();
  /** Per session, its save under way: `free` once the engine can run again, `done` once it is on disk. */
  private readonly saving = new Map<number, { free: Promise<void>; done: Promise<void> }>();
  private readonly idleTimers = new Map<number, NodeJS.Timeout>();
  private readonly locks = new Map<number, SessionLock>();
  private readonly opening = new Map<number, Promise<AgentLoop>>();

  constructor(private readonly o: PoolOptions) {}

  isRunning(id: number): boolean {
    return this.running.has(id);
  }

  /** The session, from its open loop when it has one (the loop's copy is the live one). */
  session(id: number): Session {
    return this.agents.get(id)?.session ?? Session.open(this.o.deps, id);
  }

  idle(id: number): void {
    if (this.running.has(id)) throw new Error('The session is answering; stop it first.');
  }

  stop(id: number): void {
    this.running.get(id)?.abort();
  }

  /**
   * Runs one piece of model work for a session, one at a time, with a stop button. With `marksStop`
   * (a reply: send, regenerate, edit and resend), the newest turn is marked stopped when Stop cut
   * it, and unmarked when it ran to its end.
   */
  async run(id: number, work: (agent: AgentLoop, signal: AbortSignal) => Promise<unknown>, o: { marksStop?: boolean } = {}): Promise<void> {
    this.idle(id);
    const controller = new AbortController();
    this.running.set(id, controller);
    this.o.emit({ type: 'session-changed', sessionId: id });
    let agent: AgentLoop | undefined;
    clearTimeout(this.idleTimers.get(id));
    this.idleTimers.delete(id);
    try {
      await this.saving.get(id)?.free;
      agent = await this.agent(id);
      await work(agent, controller.signal);
      if (o.marksStop) this.o.marks?.setLatestTurnStopped(id, controller.signal.aborted);
    } catch (err) {
      this.o.emit({ type: 'error', sessionId: id, message: (err as Error).message });
      throw err;
    } finally {
      this.running.delete(id);
      if (agent) this.saveWhenIdle(id, agent);
      this.o.emit({ type: 'turn-ended', sessionId: id });
    }
  }

  /**
   * Reads from the session's loop without model work (the context view): not while it answers, and
   * once a save under way has let go of its engine.
   */
  async read<T>(id: number, reading: (agent: AgentLoop) => Promise<T>): Promise<T> {
    this.idle(id);
    await this.saving.get(id)?.free;
    return reading(await this.agent(id));
  }

  /**
   * The session's loop, opened on its model (or the chosen one) and its saved cache, if usable.
   * Asked again while it opens (a price and an action at once), the same opening is awaited: one
   * loop, one sequence and one lock per session.
   */
  async agent(id: number): Promise<AgentLoop> {
    const existing = this.agents.get(id);
    if (existing) {
      // Most recently used last: the first idle one is the one to close when sequences run out.
      this.agents.delete(id);
      this.agents.set(id, existing);
      return existing;
    }
    let opening = this.opening.get(id);
    if (!opening) {
      opening = this.open(id).finally(() => this.opening.delete(id));
      this.opening.set(id, opening);
    }
    return opening;
  }

  private async open(id: number): Promise<AgentLoop> {
    const lock = this.o.lock?.(id);
    try {
      const row = this.o.deps.store.getSession(id);
      const external = row && this.o.external ? await this.o.external(row) : undefined;
      const session = Session.open({ ...this.o.deps, external }, id);
      const agent = openAgent({
        session, store: this.o.deps.store, promptsDir: this.o.deps.promptsDir,
        engine: await this.engineFor(this.refFor(session.model)), script: this.o.scriptFor?.(id), stateFile: sessionStateFile(this.o.dataFolder, id),
        onEvent: (e) => this.forward(id, e),
      });
      await agent.restoreState();
      this.agents.set(id, agent);
      if (lock) this.locks.set(id, lock);
      return agent;
    } catch (e) {
      lock?.release();
      throw e;
    }
  }

  /**
   * Moves a session to another model (a GGUF's path, or a server's `URL#MODEL`): the prompt is
   * rebuilt and the next request reads everything. A model that cannot be read, loaded or reached
   * throws, and the session stays on its own.
   */
  async switchModel(id: number, model: string): Promise<void> {
    this.idle(id);
    const engine = await this.engineFor(parseEngineRef(model));
    try {
      await (await this.agent(id)).switchEngine(engine);
    } catch (e) {
      await engine.dispose();
      throw e;
    }
  }

  /**
   * An engine for a subagent: a sequence (or server slot) of its own on the model its parent runs on,
   * never the parent's. Not kept in the pool: the child's loop is closed when it has answered.
   */
  childEngine(child: Session): Promise<Engine> {
    return this.engineFor(this.refFor(child.model));
  }

  /** The session's own model, read; the default where it has none yet, or its file is gone. */
  private refFor(model: string): EngineRef {
    const own = model === '' ? undefined : parseEngineRef(model);
    if (own && !engineRefGone(own)) return own;
    const fallback = this.o.catalog.defaultModel();
    if (!fallback) throw new Error('No model is loaded: choose a GGUF file or a server first.');
    return parseEngineRef(fallback);
  }

  /** An engine on what the reference names, loaded or connected and checked first. */
  private async engineFor(ref: EngineRef): Promise<Engine> {
    return openEngine(await connectEngine(ref, this.hosting()));
  }

  /** What the app gives an engine while it opens: its kept keys, its shared model loads, its events. */
  private hosting(): EngineHosting {
    return {
      apiKey: (url) => this.o.serverKey?.(url),
      loadModel: async (ref) => {
        const loaded = await this.o.catalog.model(ref.file);
        await this.freeSequence(loaded);
        return loaded;
      },
      stateBudget: this.o.catalog.settings.stateBudgetBytes ?? defaultStateBudget(this.o.dataFolder),
    };
  }

  /** Closes a session's loop and removes its saved cache (the session is being deleted). */
  async forget(id: number): Promise<void> {
    this.idle(id);
    clearTimeout(this.idleTimers.get(id));
    this.idleTimers.delete(id);
    await this.saving.get(id)?.done;
    await this.close(id);
    removeSessionState(this.o.dataFolder, id);
  }

  /** Gives every sequence back, saving each session's cache first (the models are about to load again). */
  async closeAll(): Promise<void> {
    if (this.running.size > 0) throw new Error('A session is answering; stop it first.');
    await Promise.all([...this.agents.keys()].map((id) => this.flush(id)));
    for (const id of [...this.agents.keys()]) await this.close(id);
  }

  async dispose(): Promise<void> {
    for (const controller of this.running.values()) controller.abort();
    await Promise.all([...this.agents.keys()].map((id) => this.flush(id)));
    for (const id of [...this.agents.keys()]) await this.close(id);
  }

  /** A session's loop closed: its sequence given back, and the session let go for other processes. */
  private async close(id: number): Promise<void> {
    const agent = this.agents.get(id);
    this.agents.delete(id);
    try {
      await agent?.dispose();
    } finally {
      this.locks.get(id)?.release();
      this.locks.delete(id);
    }
  }

  /**
   * Saves the session's cache once it has been idle a while (loop.json `idle_save_ms`): a message sent
   * before then cancels the save, so a quick conversation writes nothing until it pauses.
   */
  private saveWhenIdle(id: number, agent: AgentLoop): void {
    clearTimeout(this.idleTimers.get(id));
    this.idleTimers.set(id, setTimeout(() => void this.saveNow(id, agent), this.o.idleSaveMs ?? loopConfig.idleSaveMs).unref());
  }

  /**
   * Saves now (a pending idle save is brought forward); awaited before a sequence is given away and at
   * quit. A message waits only until the engine is free again, not for the write to reach the disk.
   */
  private saveNow(id: number, agent: AgentLoop): Promise<void> {
    clearTimeout(this.idleTimers.get(id));
    this.idleTimers.delete(id);
    const previous = this.saving.get(id)?.done ?? Promise.resolve();
    let copied = () => {};
    const free = new Promise<void>((resolve) => (copied = resolve));
    const done = previous.then(() => agent.saveState({ copied })).catch((e: Error) => {
      this.o.emit({ type: 'error', sessionId: id, message: `The cache of session ${id} could not be saved: ${e.message}` });
    }).finally(copied);
    const save = { free, done };
    this.saving.set(id, save);
    void done.then(() => {
      if (this.saving.get(id) === save) this.saving.delete(id);
    });
    return done;
  }

  /** A save this session owes: one waiting for idle is made now; one under way is awaited to the disk. */
  private flush(id: number): Promise<void> {
    const agent = this.agents.get(id);
    if (agent && this.idleTimers.has(id)) return this.saveNow(id, agent);
    return this.saving.get(id)?.done ?? Promise.resolve();
  }

  /**
   * One context sequence per open session: when the model's context has none left, the least
   * recently used idle session gives its sequence back (its cache was saved when it went idle).
   */
  private async freeSequence(model: LoadedModel): Promise<void> {
    if (model.context.sequencesLeft > 0) return;
    for (const [id, agent] of this.agents) {
      // An engine on a model file has the file's path as its id (engineRefId); a server's never does.
      if (agent.engine.id === model.path && !this.running.has(id)) {
        await this.flush(id);
        await this.close(id);
        return;
      }
    }
    throw new Error('Every session on this model is busy; stop one first.');
  }

  /** A loop's event as the window's (a subagent's go out under its own session id). */
  forward(id: number, e: LoopEvent): void {
    const emit = this.o.emit;
    if (e.type === 'message') emit({ type: 'message', sessionId: id, sent: e.sent });
    if (e.type === 'text') emit({ type: 'text', sessionId: id, delta: e.delta });
    if (e.type === 'tool-started') emit({ type: 'tool-started', sessionId: id, id: formatId(e.number), name: e.name, args: e.args });
    if (e.type === 'tool') emit({ type: 'tool', sessionId: id, tool: callView(e.result, e.name, e.args, this.o.deps.store.listAttachments(id, e.result.number)) });
    if (e.type === 'request') emit({ type: 'request', sessionId: id, request: e.request });
    if (e.type === 'compacted') emit({ type: 'session-changed', sessionId: id });
    if (e.type === 'notice') emit({ type: 'error', sessionId: id, message: e.text });
    // A UserPromptSubmit or Stop hook has no call card: one that failed is shown as an error, with its output.
    if (e.type === 'hook') for (const message of e.runs.map(hookFailure)) if (message) emit({ type: 'error', sessionId: id, message });
  }
}
