import fs from 'node:fs';
import path from 'node:path';
import type { ApprovalAnswer, ApprovalView, AppState, KeelApi, KeelEvent, ModelFile, RecallView, SessionSummary } from '../contract.js';
import { formatId, parseId } from '../core/hygiene/ids.js';
import type { ApprovalDecision } from '../core/permissions/approval.js';
import { Session, type SessionDeps } from '../core/session/session.js';
import type { Mode, RequestRow, SessionKind } from '../core/session/types.js';
import { ToolRegistry } from '../core/tools/registry.js';
import type { SqliteStore } from '../db/store.js';
import { Agent } from '../llm/agent.js';
import { downloadModel, RECOMMENDED_MODEL } from '../llm/download.js';
import { loadModel, type LoadedModel } from '../llm/model.js';
import type { Script } from '../llm/request.js';
import type { CommandRunner } from '../core/tools/commandRunner.js';
import { createSandboxRunner } from '../sandbox/runner.js';
import { permissionRules, readSettings, sandboxOptions, writeSettings, type Settings } from './settings.js';
import { sandboxView, sessionView, summaryOf, toolView } from './views.js';

export interface ServiceOptions {
  store: SqliteStore;
  dataFolder: string;
  promptsDir: string;
  emit: (event: KeelEvent) => void;
  threads?: number;
  contextSize?: number;
  /** Scripted replies per session (tests and benchmarks drive the real engine with them). */
  scriptFor?: (sessionId: number) => Script | undefined;
  now?: () => Date;
  /** The desktop app's native folder dialog (Electron's); browser mode has none. */
  pickFolder?: () => Promise<string | undefined>;
  /** Runs bash's commands (default: the OS sandbox with the person's settings). */
  commands?: CommandRunner;
}

const RECALL_PAGE = 2000;

/**
 * Everything the UI can ask, on the real store, tools and engine. The IPC binder and the
 * loopback server both bind this one object, so the two transports cannot drift apart.
 */
export class KeelService implements KeelApi {
  private readonly tools = new ToolRegistry();
  private readonly deps: SessionDeps;
  private readonly models = new Map<string, Promise<LoadedModel>>();
  private readonly agents = new Map<number, Agent>();
  private readonly running = new Map<number, AbortController>();
  private settings: Settings;
  private loadedModel?: string;
  private readonly approvals = new Map<number, { view: ApprovalView; resolve: (decision: ApprovalDecision) => void }>();
  private nextApproval = 1;
  private sessionsStamp: string;

  constructor(private readonly o: ServiceOptions) {
    this.deps = {
      store: o.store, tools: this.tools, promptsDir: o.promptsDir, now: o.now ?? (() => new Date()),
      commands: o.commands ?? createSandboxRunner(sandboxOptions(o.dataFolder)),
      permissions: {
        protectedFolders: [o.dataFolder],
        rules: permissionRules(o.dataFolder),
        // The gate asks the person through the UI; the model never sees or answers this.
        approve: (request) => new Promise((resolve) => {
          const view: ApprovalView = { approvalId: this.nextApproval++, ...request };
          this.approvals.set(view.approvalId, { view, resolve });
          this.o.emit({ type: 'approval', approval: view });
        }),
      },
    };
    this.settings = readSettings(o.dataFolder);
    this.sessionsStamp = o.store.sessionsStamp();
  }

  async getState(): Promise<AppState> {
    return {
      modelsFolder: this.settings.modelsFolder, lastModel: this.settings.lastModel, loadedModel: this.loadedModel, dataFolder: this.o.dataFolder,
      canPickFolder: this.o.pickFolder !== undefined, sandbox: await sandboxView(this.deps.commands),
    };
  }

  async pickFolder(): Promise<string | undefined> {
    return this.o.pickFolder?.();
  }

  async listSessions(): Promise<SessionSummary[]> {
    return this.o.store.listSessions().map((row) => summaryOf(row, this.o.store)).reverse();
  }

  async createSession(o: { workspace: string; kind: SessionKind; mode?: Mode; title?: string }): Promise<SessionSummary> {
    const session = Session.create(this.deps, { root: o.workspace, kind: o.kind, mode: o.mode, title: o.title, model: this.settings.lastModel ?? '' });
    return summaryOf(this.o.store.getSession(session.id)!, this.o.store);
  }

  async openSession(id: number) {
    return sessionView(this.session(id), this.o.store, this.running.has(id));
  }

  async deleteSession(id: number): Promise<void> {
    if (this.running.has(id)) throw new Error('The session is answering; stop it first.');
    await this.agents.get(id)?.dispose();
    this.agents.delete(id);
    this.o.store.deleteSession(id);
  }

  async send(id: number, text: string): Promise<void> {
    await this.run(id, (agent, signal) => agent.send(text, { signal }));
  }

  /** Stops a running reply; an approval it waits for is denied. */
  async stop(id: number): Promise<void> {
    this.running.get(id)?.abort();
    for (const [approvalId, pending] of this.approvals) if (pending.view.sessionId === id) await this.answerApproval(approvalId, 'deny');
  }

  async undo(id: number): Promise<void> {
    this.idle(id);
    (await this.agent(id)).undo();
    this.o.emit({ type: 'session-changed', sessionId: id });
  }

  async regenerate(id: number): Promise<void> {
    await this.run(id, (agent, signal) => agent.regenerate({ signal }));
  }

  async compact(id: number): Promise<void> {
    await this.run(id, (agent, signal) => agent.compact(signal));
  }

  async setMode(id: number, mode: Mode): Promise<void> {
    this.session(id).setMode(mode);
    this.o.emit({ type: 'session-changed', sessionId: id });
  }

  async recall(id: number, result: string, offset = 1): Promise<RecallView> {
    const session = this.session(id);
    const { number, label } = parseId(result);
    const row = number === undefined ? undefined : this.o.store.getResult(id, number);
    if (!row || number === undefined) throw new Error(`No stored result ${label} in session ${id}.`);
    const lines = row.body === '' ? [] : row.body.split('\n');
    const turn = session.history().find((t) => t.id === row.turnId);
    const last = session.history().at(-1);
    return {
      id: formatId(number), number, tool: row.tool, args: JSON.parse(row.args), pathGiven: row.pathGiven,
      pathResolved: row.pathResolved, fileHash: row.fileHash, kind: row.kind, insertedAt: row.createdAt,
      inRequest: turn !== undefined && (session.kind === 'agent' || (turn === last && turn.status === 'open')),
      inserted: row.inserted, offset, lines: lines.slice(offset - 1, offset - 1 + RECALL_PAGE), totalLines: lines.length,
    };
  }

  async requests(id: number): Promise<RequestRow[]> {
    return this.o.store.listRequests(id);
  }

  async listModels(): Promise<ModelFile[]> {
    const folder = this.settings.modelsFolder;
    if (!fs.existsSync(folder)) return [];
    return fs.readdirSync(folder)
      .filter((name) => name.toLowerCase().endsWith('.gguf'))
      .sort()
      .map((name) => ({ path: path.join(folder, name), name, sizeBytes: fs.statSync(path.join(folder, name)).size }));
  }

  async setModelsFolder(folder: string): Promise<void> {
    if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) throw new Error(`${path.resolve(folder)} is not a folder.`);
    this.remember({ modelsFolder: path.resolve(folder) });
  }

  async loadModel(file: string): Promise<void> {
    await this.model(file);
    this.loadedModel = path.resolve(file);
    this.remember({ lastModel: this.loadedModel });
  }

  async downloadModel(uri = RECOMMENDED_MODEL): Promise<string> {
    fs.mkdirSync(this.settings.modelsFolder, { recursive: true });
    const file = await downloadModel(uri, this.settings.modelsFolder, (fraction) => this.o.emit({ type: 'model-progress', path: uri, fraction }));
    await this.loadModel(file);
    return file;
  }

  async setPlan(id: number, items: { text: string; status?: 'todo' | 'doing' | 'done' }[]): Promise<void> {
    this.session(id).setPlanByPerson(items.map((item) => ({ text: item.text, status: item.status ?? 'todo' })));
    this.o.emit({ type: 'session-changed', sessionId: id });
  }

  async switchModel(id: number, file: string): Promise<void> {
    this.idle(id);
    const agent = await this.agent(id);
    await agent.switchModel(await this.model(file));
    this.o.emit({ type: 'session-changed', sessionId: id });
  }

  async answerApproval(approvalId: number, answer: ApprovalAnswer, reason?: string): Promise<void> {
    const pending = this.approvals.get(approvalId);
    if (!pending) throw new Error(`No approval ${approvalId} is waiting.`);
    this.approvals.delete(approvalId);
    pending.resolve({ answer, reason });
    this.o.emit({ type: 'approval-answered', approvalId, answer });
  }

  async pendingApprovals(): Promise<ApprovalView[]> {
    return [...this.approvals.values()].map((p) => p.view);
  }

  /**
   * Tells the UI when sessions were created or deleted outside it (by `keel` on the same store).
   * The app hosts call this every couple of seconds; it is one small query.
   */
  checkOutside(): void {
    const stamp = this.o.store.sessionsStamp();
    if (stamp === this.sessionsStamp) return;
    this.sessionsStamp = stamp;
    this.o.emit({ type: 'sessions-changed' });
  }

  async close(): Promise<void> {
    for (const id of [...this.approvals.keys()]) await this.answerApproval(id, 'deny');
    for (const controller of this.running.values()) controller.abort();
    for (const agent of this.agents.values()) await agent.dispose();
    for (const model of this.models.values()) await (await model).dispose();
  }

  private remember(fields: Partial<Settings>): void {
    this.settings = { ...this.settings, ...fields };
    writeSettings(this.o.dataFolder, this.settings);
  }

  private session(id: number): Session {
    return this.agents.get(id)?.session ?? Session.open(this.deps, id);
  }

  private idle(id: number): void {
    if (this.running.has(id)) throw new Error('The session is answering; stop it first.');
  }

  private model(file: string): Promise<LoadedModel> {
    const key = path.resolve(file);
    let loading = this.models.get(key);
    if (!loading) {
      loading = loadModel({
        modelPath: key, threads: this.o.threads, contextSize: this.o.contextSize,
        onProgress: (fraction) => this.o.emit({ type: 'model-progress', path: key, fraction }),
      });
      this.models.set(key, loading);
      loading.then(() => this.o.emit({ type: 'model-loaded', path: key }), () => this.models.delete(key));
    }
    return loading;
  }

  private async agent(id: number): Promise<Agent> {
    const existing = this.agents.get(id);
    if (existing) {
      // Most recently used last: the first idle one is the one to close when sequences run out.
      this.agents.delete(id);
      this.agents.set(id, existing);
      return existing;
    }
    const session = Session.open(this.deps, id);
    const file = session.model && fs.existsSync(session.model) ? session.model : this.loadedModel ?? this.settings.lastModel;
    if (!file) throw new Error('No model is loaded: choose a GGUF file first.');
    const model = await this.model(file);
    await this.freeSequence(model);
    const agent = new Agent({
      session, store: this.o.store, tools: this.tools, promptsDir: this.o.promptsDir, model,
      script: this.o.scriptFor?.(id), stateFile: path.join(this.o.dataFolder, 'state', `session-${id}.bin`),
      onEvent: (e) => {
        if (e.type === 'message') this.o.emit({ type: 'message', sessionId: id, sent: e.sent });
        if (e.type === 'text') this.o.emit({ type: 'text', sessionId: id, delta: e.delta });
        if (e.type === 'tool') this.o.emit({ type: 'tool', sessionId: id, tool: toolView(this.o.store.getResult(id, e.result.number), e.name, e.args, e.result.number) });
        if (e.type === 'request') this.o.emit({ type: 'request', sessionId: id, request: e.request });
        if (e.type === 'compacted') this.o.emit({ type: 'session-changed', sessionId: id });
      },
    });
    fs.mkdirSync(path.join(this.o.dataFolder, 'state'), { recursive: true });
    await agent.restoreState();
    this.agents.set(id, agent);
    return agent;
  }

  /**
   * One context sequence per open session: when the model's context has none left, the least
   * recently used idle session gives its sequence back (its KV state was saved after its last turn).
   */
  private async freeSequence(model: LoadedModel): Promise<void> {
    if (model.context.sequencesLeft > 0) return;
    for (const [id, agent] of this.agents) {
      if (agent.model === model && !this.running.has(id)) {
        await agent.dispose();
        this.agents.delete(id);
        return;
      }
    }
    throw new Error('Every session on this model is busy; stop one first.');
  }

  /** Runs one piece of model work for a session, one at a time, with a stop button. */
  private async run(id: number, work: (agent: Agent, signal: AbortSignal) => Promise<unknown>): Promise<void> {
    this.idle(id);
    const controller = new AbortController();
    this.running.set(id, controller);
    this.o.emit({ type: 'session-changed', sessionId: id });
    try {
      await work(await this.agent(id), controller.signal);
    } catch (err) {
      this.o.emit({ type: 'error', sessionId: id, message: (err as Error).message });
      throw err;
    } finally {
      this.running.delete(id);
      this.o.emit({ type: 'turn-ended', sessionId: id });
    }
  }
}
